package mcpwire

import "github.com/mcpsum/mcpsum/internal/mcpspec"

// ClientNotification reports whether method is a notification a client may
// send a server in protocol version version (a legacy initialize version,
// or Modern), as each version's schema lists them (ClientNotification).
// A proxy drops any other: a request method sent without an id would reach
// a server past every check made on requests.
func ClientNotification(version, method string) bool {
	switch method {
	case "notifications/cancelled":
		return true
	case "notifications/initialized", "notifications/progress", "notifications/roots/list_changed":
		return version != mcpspec.Modern
	case "notifications/tasks/status":
		return version == mcpspec.Version20251125
	}
	return false
}
