// Command bareclient is the floor for `mcpsum lock` in the lean benchmark
// (e2e TestLeanBench): a bare MCP client that starts a server, does the
// 2025-11-25 handshake, lists tools, prompts, resources and resource
// templates (following nextCursor) and exits. It checks nothing and pins
// nothing. Usage: bareclient COMMAND [ARG]...
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: bareclient COMMAND [ARG]...")
		os.Exit(2)
	}
	cmd := exec.Command(os.Args[1], os.Args[2:]...)
	in, _ := cmd.StdinPipe()
	out, _ := cmd.StdoutPipe()
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	r := bufio.NewReaderSize(out, 1<<20)
	id := 0
	call := func(method string, params any) map[string]json.RawMessage {
		id++
		line, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
		if _, err := in.Write(append(line, '\n')); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		for {
			l, err := r.ReadBytes('\n')
			if err != nil {
				fmt.Fprintln(os.Stderr, "read:", err)
				os.Exit(1)
			}
			var m map[string]json.RawMessage
			if json.Unmarshal(l, &m) == nil && string(m["id"]) == fmt.Sprint(id) {
				var res map[string]json.RawMessage
				json.Unmarshal(m["result"], &res)
				return res
			}
		}
	}
	call("initialize", map[string]any{"protocolVersion": "2025-11-25", "capabilities": map[string]any{}, "clientInfo": map[string]string{"name": "bare", "version": "1"}})
	io.WriteString(in, `{"jsonrpc":"2.0","method":"notifications/initialized"}`+"\n")
	n := 0
	for _, kind := range []struct{ method, field string }{
		{"tools/list", "tools"}, {"prompts/list", "prompts"}, {"resources/list", "resources"}, {"resources/templates/list", "resourceTemplates"},
	} {
		params := map[string]any{}
		for {
			res := call(kind.method, params)
			var items []json.RawMessage
			json.Unmarshal(res[kind.field], &items)
			n += len(items)
			var cursor string
			if json.Unmarshal(res["nextCursor"], &cursor) != nil || cursor == "" {
				break
			}
			params = map[string]any{"cursor": cursor}
		}
	}
	in.Close()
	cmd.Wait()
	fmt.Println(n)
}
