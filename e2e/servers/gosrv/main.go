// Command gosrv is a small, real MCP server built on the official go-sdk
// (github.com/modelcontextprotocol/go-sdk v1.8.0), for mcpsum's end-to-end
// tests. It is not a fake: every reply comes from the SDK. Flags select the
// protocol eras it speaks, its page size and small changes to its surface for
// drift tests.
//
// Surface: tools "add" and "echo", prompt "greet", resource
// probe://static/readme, resource template probe://item/{id}.
//
//	-versions 2025-11-25,2025-06-18   legacy only (server/discover gets -32022)
//	-versions 2026-07-28              2026-07-28 only
//	(default: both eras, every version go-sdk knows)
//	-pagesize 1                       paginate every list one item per page
//	-instructions S                   the instructions (default "probe server: use add for sums")
//	-desc S                           the echo tool's description (default "echo text")
//	-extra-tool NAME                  add a tool NAME (description "extra tool")
//	-drop-prompt                      do not register the greet prompt
//	-server-version V                 serverInfo.version (default 0.0.1)
//	-exit-on-start                    write an error to stderr and exit 3 before serving
//	-desc-cwd                         append the working directory to the echo tool's
//	                                  description (as figma-developer-mcp does)
//	-http ADDR                        serve Streamable HTTP at ADDR instead of stdio
//	-stateless                        with -http: go-sdk's stateless handler, which
//	                                  serves 2026-07-28 (the stateful one, like
//	                                  examples/server/everything -http, only the legacy era)
package main

import (
	"context"
	"flag"
	"fmt"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type addIn struct {
	A int `json:"a" jsonschema:"first addend"`
	B int `json:"b" jsonschema:"second addend"`
}

type addOut struct {
	Sum int `json:"sum"`
}

type echoIn struct {
	Text string `json:"text" jsonschema:"text to echo"`
}

func main() {
	versions := flag.String("versions", "", "comma-separated protocol versions to speak (default: all go-sdk knows)")
	pageSize := flag.Int("pagesize", 0, "list page size (0: go-sdk default)")
	instructions := flag.String("instructions", "probe server: use add for sums", "server instructions")
	desc := flag.String("desc", "echo text", "description of the echo tool")
	extraTool := flag.String("extra-tool", "", "name of an extra tool to register")
	dropPrompt := flag.Bool("drop-prompt", false, "do not register the greet prompt")
	serverVersion := flag.String("server-version", "0.0.1", "serverInfo.version")
	exitOnStart := flag.Bool("exit-on-start", false, "fail before serving")
	descCwd := flag.Bool("desc-cwd", false, "append the working directory to the echo description")
	httpAddr := flag.String("http", "", "serve Streamable HTTP at this address instead of stdio")
	stateless := flag.Bool("stateless", false, "with -http: the stateless handler (2026-07-28)")
	requireEnv := flag.String("require-env", "", "exit at start when this environment variable is not set (as servers needing USER do)")
	startsFile := flag.String("starts-file", "", "append a line to this file at each start")
	whoami := flag.Bool("whoami", false, "add a tool whoami that answers the clientInfo the client sent")
	resourcesDir := flag.String("resources-dir", "", "list one resource per file in this folder (as server-postgres lists one per table)")
	flag.Parse()
	if *startsFile != "" {
		f, err := os.OpenFile(*startsFile, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
		if err == nil {
			fmt.Fprintln(f, "started")
			f.Close()
		}
	}
	// GOSRV_START_DELAY (a Go duration), when passed through, delays the
	// first answer: a server that is slow to start (a cold npx download).
	if d, err := time.ParseDuration(os.Getenv("GOSRV_START_DELAY")); err == nil {
		time.Sleep(d)
	}
	if *requireEnv != "" && os.Getenv(*requireEnv) == "" {
		fmt.Fprintf(os.Stderr, "gosrv: no %s specified\n", *requireEnv)
		os.Exit(1)
	}
	if *descCwd {
		wd, err := os.Getwd()
		if err != nil {
			fmt.Fprintln(os.Stderr, "gosrv:", err)
			os.Exit(1)
		}
		*desc += " (files under " + wd + ")"
	}

	if *exitOnStart {
		fmt.Fprintln(os.Stderr, "gosrv: refusing to start (-exit-on-start)")
		os.Exit(3)
	}
	opts := &mcp.ServerOptions{Instructions: *instructions, PageSize: *pageSize}
	if *versions != "" {
		opts.SupportedProtocolVersions = strings.Split(*versions, ",")
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "gosrv", Version: *serverVersion}, opts)

	mcp.AddTool(s, &mcp.Tool{Name: "add", Description: "add two ints"},
		func(ctx context.Context, req *mcp.CallToolRequest, in addIn) (*mcp.CallToolResult, addOut, error) {
			return nil, addOut{Sum: in.A + in.B}, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: *desc},
		func(ctx context.Context, req *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
			return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
		})
	if *extraTool != "" {
		mcp.AddTool(s, &mcp.Tool{Name: *extraTool, Description: "extra tool"},
			func(ctx context.Context, req *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
			})
	}
	if *whoami {
		mcp.AddTool(s, &mcp.Tool{Name: "whoami", Description: "the clientInfo this server got"},
			func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, any, error) {
				info := "(none)"
				if ip := req.Session.InitializeParams(); ip != nil && ip.ClientInfo != nil {
					info = ip.ClientInfo.Name + " " + ip.ClientInfo.Version
				}
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: info}}}, nil, nil
			})
	}
	if !*dropPrompt {
		s.AddPrompt(&mcp.Prompt{Name: "greet", Arguments: []*mcp.PromptArgument{{Name: "who", Required: true}}},
			func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
				return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{
					Role: "user", Content: &mcp.TextContent{Text: "hello " + req.Params.Arguments["who"]},
				}}}, nil
			})
	}
	read := func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{
			URI: req.Params.URI, MIMEType: "text/plain", Text: "contents of " + req.Params.URI,
		}}}, nil
	}
	s.AddResource(&mcp.Resource{URI: "probe://static/readme", Name: "readme", MIMEType: "text/plain"}, read)
	if *resourcesDir != "" {
		entries, _ := os.ReadDir(*resourcesDir)
		for _, e := range entries {
			s.AddResource(&mcp.Resource{URI: "probe://table/" + e.Name(), Name: e.Name(), MIMEType: "text/plain"}, read)
		}
		// create_table adds a resource while the server runs (go-sdk then
		// sends notifications/resources/list_changed).
		mcp.AddTool(s, &mcp.Tool{Name: "create_table", Description: "add a table"},
			func(ctx context.Context, req *mcp.CallToolRequest, in echoIn) (*mcp.CallToolResult, any, error) {
				s.AddResource(&mcp.Resource{URI: "probe://table/" + in.Text, Name: in.Text, MIMEType: "text/plain"}, read)
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "created " + in.Text}}}, nil, nil
			})
	}
	s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "probe://item/{id}", Name: "item", MIMEType: "text/plain"}, read)

	if *httpAddr != "" {
		h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{Stateless: *stateless})
		fmt.Fprintln(os.Stderr, (&http.Server{Addr: *httpAddr, Handler: h}).ListenAndServe())
		os.Exit(1)
	}
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "gosrv:", err)
		os.Exit(1)
	}
}
