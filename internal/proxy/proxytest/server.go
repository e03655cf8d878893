package proxytest

//lint:file-ignore SA1019 the test server exercises the legacy era's roots and sampling, deprecated in 2026-07-28, which the proxy bridges

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"sync/atomic"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ServeFlag is the first argument that makes a test binary act as this server.
const ServeFlag = "-proxytest.serve"

// MaybeServe runs the server and exits when os.Args[1] is ServeFlag; call it
// first thing in TestMain.
func MaybeServe() {
	if len(os.Args) > 1 && os.Args[1] == ServeFlag {
		os.Exit(Main(os.Args[2:]))
	}
}

type addIn struct {
	A int `json:"a" jsonschema:"first addend"`
	B int `json:"b" jsonschema:"second addend"`
}

type addOut struct {
	Sum int `json:"sum"`
}

type textIn struct {
	Text string `json:"text" jsonschema:"text to echo"`
}

type noIn struct{}

type bigIn struct {
	Bytes int `json:"bytes" jsonschema:"size of the text to return"`
}

type floodIn struct {
	Count int `json:"count" jsonschema:"progress notifications to send"`
}

type touchIn struct {
	URI string `json:"uri" jsonschema:"resource URI"`
}

type askIn struct {
	Kind    string `json:"kind" jsonschema:"roots, sampling or elicitation"`
	Message string `json:"message,omitempty" jsonschema:"the elicitation's message (default: your name?)"`
}

var cancelled atomic.Int64

// Main runs the server with args (flags below) on stdin/stdout and returns
// the exit code.
func Main(args []string) int {
	fs := flag.NewFlagSet("proxytest", flag.ContinueOnError)
	versions := fs.String("versions", "", "comma-separated protocol versions (default: all go-sdk knows)")
	desc := fs.String("desc", "echo text", "description of the echo tool")
	pageSize := fs.Int("pagesize", 0, "list page size")
	tools := fs.Int("tools", 0, "extra tools named t0001... (for big locks)")
	startDelay := fs.Duration("start-delay", 0, "sleep before serving")
	serverVersion := fs.String("server-version", "1.0.0", "serverInfo.version")
	neverAnswer := fs.Bool("never-answer", false, "FAKE: read stdin, never answer")
	rootsAtStart := fs.Bool("roots-at-start", false, "ask the client for roots/list once initialized (as server-filesystem does); the roots-seen tool returns the answer")
	rootsApply := fs.Duration("roots-apply-delay", 0, "with -roots-at-start: apply the answer this long after it came, then say so on stderr (as server-filesystem does after resolving each root); roots-seen answers at once with what is applied")
	fastBig := fs.Bool("fake-fast-big", false, "FAKE: a hand-written legacy server whose big (text) and rows (structuredContent) tools answer at write speed (FastBig), for the throughput benchmark")
	fakeTasks := fs.Bool("fake-modern-tasks", false, "FAKE: a hand-written 2026-07-28 server with the tasks extension (FakeModernTasks)")
	httpAddr := fs.String("http", "", "serve Streamable HTTP at this address (go-sdk's handler) instead of stdio")
	stateless := fs.Bool("stateless", false, "with -http: go-sdk's stateless handler (2026-07-28)")
	rows := fs.Int("rows", 0, "extra resources test://rows/N/data, one per row (data as server-postgres lists tables)")
	headerTool := fs.Bool("header-tool", false, "add a tool route whose region argument is mirrored into Mcp-Param-Region (x-mcp-header)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if *fastBig {
		return FastBig(os.Stdin, os.Stdout)
	}
	if *fakeTasks {
		return FakeModernTasks(os.Stdin, os.Stdout)
	}
	time.Sleep(*startDelay)
	if *neverAnswer {
		fmt.Fprintln(os.Stderr, "proxytest: never answering (fake server)")
		io.Copy(io.Discard, os.Stdin)
		return 0
	}
	opts := &mcp.ServerOptions{Instructions: "proxy test server", PageSize: *pageSize,
		// Resource subscriptions (resources/subscribe, or a 2026-07-28
		// listen stream's resourceSubscriptions): the SDK keeps the
		// subscribers; the "touch" tool announces an update.
		SubscribeHandler:   func(context.Context, *mcp.SubscribeRequest) error { return nil },
		UnsubscribeHandler: func(context.Context, *mcp.UnsubscribeRequest) error { return nil }}
	if *versions != "" {
		opts.SupportedProtocolVersions = strings.Split(*versions, ",")
	}
	var roots atomic.Value // the JSON of the start-up roots/list answer
	rootsAsked := make(chan struct{})
	if *rootsAtStart {
		opts.InitializedHandler = func(ctx context.Context, req *mcp.InitializedRequest) {
			go func() {
				res, err := req.Session.ListRoots(context.Background(), nil)
				if err != nil {
					roots.Store("error: " + err.Error())
					return
				}
				b, _ := json.Marshal(res.Roots)
				if *rootsApply > 0 {
					time.Sleep(*rootsApply)
					roots.Store(string(b))
					fmt.Fprintf(os.Stderr, "applied %d roots\n", len(res.Roots))
					return
				}
				roots.Store(string(b))
			}()
			if *rootsApply > 0 {
				close(rootsAsked)
			}
		}
	}
	s := mcp.NewServer(&mcp.Implementation{Name: "proxytest", Version: *serverVersion}, opts)
	if *rootsApply > 0 {
		// As server-filesystem: the start-up roots/list goes out before the
		// answers to the lists that follow initialized (the go-sdk runs
		// the initialized handler alongside them).
		s.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
			return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
				if strings.HasSuffix(method, "/list") {
					select {
					case <-rootsAsked:
						time.Sleep(20 * time.Millisecond)
					case <-time.After(2 * time.Second):
					}
				}
				return next(ctx, method, req)
			}
		})
	}
	addTools(s, *desc)
	if *rootsAtStart {
		mcp.AddTool(s, &mcp.Tool{Name: "roots-seen", Description: "the answer to the start-up roots/list"},
			func(ctx context.Context, req *mcp.CallToolRequest, in noIn) (*mcp.CallToolResult, any, error) {
				for i := 0; i < 100 && roots.Load() == nil && *rootsApply == 0; i++ {
					time.Sleep(20 * time.Millisecond)
				}
				v, _ := roots.Load().(string)
				return text("roots: " + v), nil, nil
			})
	}
	for i := 1; i <= *tools; i++ {
		mcp.AddTool(s, &mcp.Tool{Name: fmt.Sprintf("t%04d", i), Description: "numbered tool"}, echo)
	}
	s.AddPrompt(&mcp.Prompt{Name: "greet", Arguments: []*mcp.PromptArgument{{Name: "who", Required: true}}},
		func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
			return &mcp.GetPromptResult{Messages: []*mcp.PromptMessage{{
				Role: "user", Content: &mcp.TextContent{Text: "hello " + req.Params.Arguments["who"]},
			}}}, nil
		})
	read := func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{
			URI: req.Params.URI, MIMEType: "text/plain", Text: "contents of " + req.Params.URI,
		}}}, nil
	}
	s.AddResource(&mcp.Resource{URI: "test://static/readme", Name: "readme", MIMEType: "text/plain"}, read)
	for i := range *rows {
		s.AddResource(&mcp.Resource{URI: fmt.Sprintf("test://rows/%d/data", i+1), Name: fmt.Sprintf("row %d", i+1), MIMEType: "text/plain"}, read)
	}
	s.AddResourceTemplate(&mcp.ResourceTemplate{URITemplate: "test://item/{id}", Name: "item", MIMEType: "text/plain"}, read)
	if *headerTool {
		s.AddTool(&mcp.Tool{Name: "route", Description: "answer the region it was routed to",
			InputSchema: json.RawMessage(`{"type":"object","properties":{"region":{"type":"string","x-mcp-header":"Region"}},"required":["region"]}`)},
			func(ctx context.Context, req *mcp.CallToolRequest) (*mcp.CallToolResult, error) {
				var in struct{ Region string }
				json.Unmarshal(req.Params.Arguments, &in)
				return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: "routed to " + in.Region}}}, nil
			})
	}
	if *httpAddr != "" {
		// a closed POST cancels its call (as a 2026-07-28 client cancels)
		h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s },
			&mcp.StreamableHTTPOptions{Stateless: *stateless, PropagateRequestCancellation: true})
		fmt.Fprintln(os.Stderr, "proxytest:", (&http.Server{Addr: *httpAddr, Handler: h}).ListenAndServe())
		return 1
	}
	if err := s.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		fmt.Fprintln(os.Stderr, "proxytest:", err)
		return 1
	}
	return 0
}

func echo(ctx context.Context, req *mcp.CallToolRequest, in textIn) (*mcp.CallToolResult, any, error) {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: in.Text}}}, nil, nil
}

func text(s string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: s}}}
}

func addTools(s *mcp.Server, desc string) {
	mcp.AddTool(s, &mcp.Tool{Name: "add", Description: "add two ints"},
		func(ctx context.Context, req *mcp.CallToolRequest, in addIn) (*mcp.CallToolResult, addOut, error) {
			return nil, addOut{Sum: in.A + in.B}, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: desc}, echo)
	mcp.AddTool(s, &mcp.Tool{Name: "big", Description: "return a text of the given size"},
		func(ctx context.Context, req *mcp.CallToolRequest, in bigIn) (*mcp.CallToolResult, any, error) {
			b := make([]byte, in.Bytes)
			for i := range b {
				b[i] = 'a' + byte(i%26)
			}
			return text(string(b)), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "slow", Description: "wait until cancelled"},
		func(ctx context.Context, req *mcp.CallToolRequest, in noIn) (*mcp.CallToolResult, any, error) {
			<-ctx.Done()
			cancelled.Add(1)
			return nil, nil, ctx.Err()
		})
	mcp.AddTool(s, &mcp.Tool{Name: "cancelled", Description: "how many slow calls were cancelled"},
		func(ctx context.Context, req *mcp.CallToolRequest, in noIn) (*mcp.CallToolResult, any, error) {
			return text(fmt.Sprint(cancelled.Load())), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "crash", Description: "exit in the middle of the call"},
		func(ctx context.Context, req *mcp.CallToolRequest, in noIn) (*mcp.CallToolResult, any, error) {
			fmt.Fprintln(os.Stderr, "proxytest: crashing as asked \x1b[31mred\x1b[0m")
			os.Exit(7)
			return nil, nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "flood", Description: "send progress notifications"},
		func(ctx context.Context, req *mcp.CallToolRequest, in floodIn) (*mcp.CallToolResult, any, error) {
			token := req.Params.GetProgressToken()
			for i := 0; i < in.Count && token != nil; i++ {
				err := req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ProgressToken: token, Progress: float64(i + 1), Total: float64(in.Count), Message: strings.Repeat("p", 200)})
				if err != nil {
					return nil, nil, err
				}
			}
			return text(fmt.Sprintf("sent %d", in.Count)), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "touch", Description: "announce that a resource changed (notifications/resources/updated)"},
		func(ctx context.Context, req *mcp.CallToolRequest, in touchIn) (*mcp.CallToolResult, any, error) {
			if err := s.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: in.URI}); err != nil {
				return nil, nil, err
			}
			return text("touched " + in.URI), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "mutate", Description: "change the echo tool's description (list_changed)"},
		func(ctx context.Context, req *mcp.CallToolRequest, in textIn) (*mcp.CallToolResult, any, error) {
			mcp.AddTool(s, &mcp.Tool{Name: "echo", Description: in.Text}, echo)
			return text("mutated"), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "giveup", Description: "ask the client for its roots (legacy request), give up after 200 ms"},
		func(ctx context.Context, req *mcp.CallToolRequest, in noIn) (*mcp.CallToolResult, any, error) {
			ctx, cancel := context.WithTimeout(ctx, 200*time.Millisecond)
			defer cancel()
			_, err := req.Session.ListRoots(ctx, nil)
			return text(fmt.Sprintf("gave up: %v", err != nil)), nil, nil
		})
	mcp.AddTool(s, &mcp.Tool{Name: "ask", Description: "ask the client for input (roots, sampling or elicitation)"},
		func(ctx context.Context, req *mcp.CallToolRequest, in askIn) (*mcp.CallToolResult, any, error) {
			if len(req.Params.InputResponses) > 0 {
				if req.Params.RequestState != "state-1" { // must come back byte for byte
					return text(fmt.Sprintf("requestState changed: %q", req.Params.RequestState)), nil, nil
				}
				b, _ := json.Marshal(req.Params.InputResponses["q"])
				return text("answer: " + string(b)), nil, nil
			}
			var ir mcp.InputRequest
			switch in.Kind {
			case "roots":
				ir = &mcp.ListRootsParams{}
			case "sampling":
				ir = &mcp.CreateMessageParams{MaxTokens: 10, Messages: []*mcp.SamplingMessage{{Role: "user", Content: &mcp.TextContent{Text: "say hi"}}}}
			default:
				msg := "your name?"
				if in.Message != "" {
					msg = in.Message
				}
				ir = &mcp.ElicitParams{Message: msg, RequestedSchema: map[string]any{"type": "object", "properties": map[string]any{"name": map[string]any{"type": "string"}}}}
			}
			return &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"q": ir}, RequestState: "state-1"}, nil, nil
		})
}
