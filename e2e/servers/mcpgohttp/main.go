// Command mcpgohttp is a real mcp-go v1.2.1 server over Streamable HTTP
// (mcp-go's own StreamableHTTPServer, JSON answers ending in a newline, as
// its encoder writes them), listening on -http; its examples/everything
// listens on :8080 only, which parallel tests cannot share.
package main

import (
	"context"
	"flag"
	"log"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"
)

func main() {
	addr := flag.String("http", "127.0.0.1:8080", "address to listen on (serves /mcp)")
	flag.Parse()
	s := server.NewMCPServer("mcpgohttp", "1.0.0", server.WithToolCapabilities(false))
	s.AddTool(mcp.NewTool("echo", mcp.WithDescription("Echo the text back"), mcp.WithString("text", mcp.Required())),
		func(_ context.Context, req mcp.CallToolRequest) (*mcp.CallToolResult, error) {
			return mcp.NewToolResultText(req.GetString("text", "")), nil
		})
	log.Fatal(server.NewStreamableHTTPServer(s).Start(*addr))
}
