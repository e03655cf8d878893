package proxytest

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
)

// FastBig is a FAKE legacy server whose tools answer from a buffer built
// once, at the speed of writing it: the throughput benchmark's fast server.
// "big" returns a text of the given size, "rows" a structuredContent of
// rows of small members (a query's rows: numbers, short strings, literals)
// of about that size. The go-sdk server encodes every result (about 50 MiB/s on
// these machines), so against it a proxy's own cost hides behind the
// server's; against FastBig the relay and the proxy are the bottleneck.
// It is a measuring instrument, not a model of a server's behaviour: it
// reads a request's id and arguments with encoding/json (its input is the
// test's own) and answers initialize, tools/list, ping and tools/call.
func FastBig(in io.Reader, out io.Writer) int {
	w := bufio.NewWriterSize(out, 64<<10)
	r := bufio.NewReaderSize(in, 64<<10)
	var text, rows []byte
	for {
		line, err := r.ReadBytes('\n')
		if err != nil {
			return 0
		}
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Name      string `json:"name"`
				Arguments struct {
					Bytes int `json:"bytes"`
				} `json:"arguments"`
			} `json:"params"`
		}
		if json.Unmarshal(line, &m) != nil || m.ID == nil {
			continue
		}
		head := `{"jsonrpc":"2.0","id":` + string(m.ID) + `,"result":`
		switch m.Method {
		case "initialize":
			w.WriteString(head + `{"protocolVersion":"2025-11-25","capabilities":{"tools":{}},"serverInfo":{"name":"fastbig","version":"1"}}}` + "\n")
		case "tools/list":
			w.WriteString(head + `{"tools":[{"name":"big","description":"return a text of the given size","inputSchema":{"type":"object","properties":{"bytes":{"type":"integer"}},"required":["bytes"]}},` +
				`{"name":"rows","description":"return rows of small members, about the given size","inputSchema":{"type":"object","properties":{"bytes":{"type":"integer"}},"required":["bytes"]}}]}}` + "\n")
		case "tools/call":
			n := m.Params.Arguments.Bytes
			if m.Params.Name == "rows" {
				if len(rows) < n || len(rows) > n+200 {
					rows = structuredRows(n)
				}
				w.WriteString(head)
				w.Write(rows)
				w.WriteString("}\n")
				break
			}
			if len(text) != n {
				text = make([]byte, n)
				for i := range text {
					text[i] = 'a' + byte(i%26)
				}
			}
			w.WriteString(head + `{"content":[{"type":"text","text":"`)
			w.Write(text)
			w.WriteString(`"}],"isError":false}}` + "\n")
		default:
			w.WriteString(`{"jsonrpc":"2.0","id":` + string(m.ID) + `,"error":{"code":-32601,"message":` + strconv.Quote("unknown method "+m.Method) + `}}` + "\n")
		}
		if w.Flush() != nil {
			return 1
		}
	}
}

// structuredRows is a tool result of at least n bytes whose
// structuredContent holds rows as a database or a file listing returns
// them.
func structuredRows(n int) []byte {
	b := []byte(`{"content":[{"type":"text","text":"rows"}],"structuredContent":{"rows":[`)
	for i := 0; len(b) < n; i++ {
		if i > 0 {
			b = append(b, ',')
		}
		b = fmt.Appendf(b, `{"id":%d,"name":"row %d","ok":%t,"score":%d.5,"tags":["a","b"],"parent":null}`, i, i, i%3 != 0, i%1000)
	}
	return append(b, `]},"isError":false}`...)
}
