package proxytest

import (
	"bufio"
	"encoding/json"
	"io"
	"strconv"
)

// FastBig is a FAKE legacy server whose only tool, "big", answers from a
// buffer built once, at the speed of writing it: the throughput benchmark's
// fast server. The go-sdk server encodes every result (about 50 MiB/s on
// these machines), so against it a proxy's own cost hides behind the
// server's; against FastBig the relay and the proxy are the bottleneck.
// It is a measuring instrument, not a model of a server's behaviour: it
// reads a request's id and arguments with encoding/json (its input is the
// test's own) and answers initialize, tools/list, ping and tools/call.
func FastBig(in io.Reader, out io.Writer) int {
	w := bufio.NewWriterSize(out, 64<<10)
	r := bufio.NewReaderSize(in, 64<<10)
	var text []byte
	for {
		line, err := r.ReadBytes('\n')
		if err != nil {
			return 0
		}
		var m struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
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
			w.WriteString(head + `{"tools":[{"name":"big","description":"return a text of the given size","inputSchema":{"type":"object","properties":{"bytes":{"type":"integer"}},"required":["bytes"]}}]}}` + "\n")
		case "tools/call":
			n := m.Params.Arguments.Bytes
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
