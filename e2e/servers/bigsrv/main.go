// Command bigsrv is a real go-sdk (v1.8.0) MCP server with many tools that
// starts fast: its tools are registered with explicit JSON schemas (no
// reflection), so the lean benchmark (e2e TestLeanBench) measures mcpsum
// against a server whose own start-up does not hide mcpsum's. Every tool
// echoes its "text" argument.
//
//	bigsrv -tools 1000
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"log"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	n := flag.Int("tools", 1000, "number of tools (t0001...)")
	pageSize := flag.Int("pagesize", 0, "list page size (0: go-sdk's default)")
	flag.Parse()
	s := mcp.NewServer(&mcp.Implementation{Name: "bigsrv", Version: "1.0.0"}, &mcp.ServerOptions{Instructions: "many tools", PageSize: *pageSize})
	schema := json.RawMessage(`{"type":"object","properties":{"text":{"type":"string","description":"text to echo"}},"required":["text"]}`)
	echo := func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
		var in struct {
			Text string `json:"text"`
		}
		_ = json.Unmarshal(req.Params.Arguments, &in)
		return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil
	}
	for i := 1; i <= *n; i++ {
		s.AddTool(&mcp.Tool{Name: fmt.Sprintf("t%04d", i), Description: fmt.Sprintf("numbered tool %d: echoes its text", i), InputSchema: schema}, echo)
	}
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		log.Fatal(err)
	}
}
