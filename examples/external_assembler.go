// A complete external implementation of the toolcall implementation protocol (version 3) in Go,
// standard library only: a small assembler of streamed tool calls for chat completions, OpenAI
// Responses, Anthropic Messages and Ollama, written the way a careful client is.
//
// It reads each message with a bufio.Reader, whose lines have no length limit: a bufio.Scanner
// stops at 64 KiB by default, and the largest message of the suite is megabytes long. It logs on
// standard error only, since standard output carries protocol lines and nothing else; each log
// line names the case (the message's "case"). It reports a turn cut by the token limit as an
// error instead of handing over half an argument object.
//
//	go build -o assemble-go examples/external_assembler.go
//	toolcall matrix --external go=./assemble-go --implementation toolcall
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
)

type function struct {
	Name      string `json:"name"`
	Arguments string `json:"arguments"`
}

type call struct {
	ID       string   `json:"id"`
	Type     string   `json:"type"`
	Function function `json:"function"`
}

// calls keeps calls in the order they opened, each found again by its key on its wire.
type calls struct {
	order []*call
	byKey map[string]*call
}

func newCalls() *calls { return &calls{byKey: map[string]*call{}} }

func (c *calls) open(key, id, name string) *call {
	found := &call{ID: id, Type: "function", Function: function{Name: name}}
	c.order = append(c.order, found)
	c.byKey[key] = found
	return found
}

func (c *calls) list() []call {
	out := []call{}
	for _, found := range c.order {
		out = append(out, *found)
	}
	return out
}

type event = map[string]any

func str(value any) string {
	text, _ := value.(string)
	return text
}

func object(value any) map[string]any {
	found, _ := value.(map[string]any)
	return found
}

func array(value any) []any {
	found, _ := value.([]any)
	return found
}

// chat finds a delta's call by its id when the id is known (Vertex repeats the whole id on
// every chunk, with an index that disagrees), else by its index; a delta without either
// continues the last call (Gemini's compatible endpoint sends no index). A new id opens a call.
// A name repeated on every chunk is taken once, not appended.
func chat(events []event) ([]call, string) {
	found := newCalls()
	var last *call
	cut := ""
	for _, chunk := range events {
		for _, choice := range array(chunk["choices"]) {
			choice := object(choice)
			for _, delta := range array(object(choice["delta"])["tool_calls"]) {
				delta := object(delta)
				fn := object(delta["function"])
				id := str(delta["id"])
				index, indexed := delta["index"].(float64)
				key := fmt.Sprintf("index %v", index)
				current, known := found.byKey["id "+id]
				if !known && id == "" && indexed {
					current, known = found.byKey[key]
				} else if !known && id == "" && last != nil {
					current, known = last, true
				}
				if !known {
					current = found.open("id "+id, id, "")
				}
				if indexed {
					found.byKey[key] = current
				}
				if current.Function.Name == "" {
					current.Function.Name = str(fn["name"])
				}
				current.Function.Arguments += str(fn["arguments"])
				last = current
			}
			if str(choice["finish_reason"]) == "length" {
				cut = "finish_reason length: the turn was cut off"
			}
		}
	}
	return found.list(), cut
}

// responses opens a call on each function_call item, appends its argument deltas, and takes
// the whole arguments from the `done` event when there is one (LM Studio sends only that).
func responses(events []event) ([]call, string) {
	found := newCalls()
	cut := ""
	for _, e := range events {
		key := fmt.Sprint(e["output_index"])
		item := object(e["item"])
		switch str(e["type"]) {
		case "response.output_item.added":
			if str(item["type"]) == "function_call" {
				found.open(key, str(item["call_id"]), str(item["name"]))
			}
		case "response.function_call_arguments.delta":
			if current, ok := found.byKey[key]; ok {
				current.Function.Arguments += str(e["delta"])
			}
		case "response.function_call_arguments.done":
			if current, ok := found.byKey[key]; ok {
				current.Function.Arguments = str(e["arguments"])
			}
		case "response.incomplete":
			cut = "response incomplete: the turn was cut off"
		}
	}
	return found.list(), cut
}

// anthropic opens a call on each tool_use block (a server tool's block is not a call for the
// client) and appends its input_json_delta fragments; a call with no input has `{}`.
func anthropic(events []event) ([]call, string) {
	found := newCalls()
	cut := ""
	for _, e := range events {
		key := fmt.Sprint(e["index"])
		block, delta := object(e["content_block"]), object(e["delta"])
		switch str(e["type"]) {
		case "content_block_start":
			if str(block["type"]) == "tool_use" {
				found.open(key, str(block["id"]), str(block["name"]))
			}
		case "content_block_delta":
			if current, ok := found.byKey[key]; ok && str(delta["type"]) == "input_json_delta" {
				current.Function.Arguments += str(delta["partial_json"])
			}
		case "message_delta":
			if str(delta["stop_reason"]) == "max_tokens" {
				cut = "stop_reason max_tokens: the turn was cut off"
			}
		}
	}
	for _, current := range found.order {
		if current.Function.Arguments == "" {
			current.Function.Arguments = "{}"
		}
	}
	return found.list(), cut
}

// ollama takes each call whole, its arguments an object written back as JSON text.
func ollama(events []event) ([]call, string) {
	found := []call{}
	cut := ""
	for _, e := range events {
		for _, each := range array(object(e["message"])["tool_calls"]) {
			fn := object(object(each)["function"])
			arguments, _ := json.Marshal(fn["arguments"])
			if fn["arguments"] == nil {
				arguments = []byte("{}")
			}
			found = append(found, call{str(object(each)["id"]), "function", function{str(fn["name"]), string(arguments)}})
		}
		if str(e["done_reason"]) == "length" {
			cut = "done_reason length: the turn was cut off"
		}
	}
	return found, cut
}

var readers = map[string]func([]event) ([]call, string){
	"chat": chat, "responses": responses, "anthropic": anthropic, "ollama": ollama,
}

type message struct {
	Cmd    string  `json:"cmd"`
	Seq    int     `json:"seq"`
	Case   string  `json:"case"`
	Wire   string  `json:"wire"`
	Events []event `json:"events"`
}

func answer(m message) map[string]any {
	found, cut := readers[m.Wire](m.Events)
	fmt.Fprintf(os.Stderr, "assemble-go: %s: %d call(s)\n", m.Case, len(found))
	if cut != "" {
		return map[string]any{"seq": m.Seq, "tool_calls": found, "error": cut}
	}
	return map[string]any{"seq": m.Seq, "tool_calls": found}
}

func main() {
	in := bufio.NewReader(os.Stdin)
	out := json.NewEncoder(os.Stdout) // one line per message: Encode ends each with "\n"
	for {
		line, err := in.ReadBytes('\n')
		if err == io.EOF && len(line) == 0 {
			return
		}
		if err != nil && err != io.EOF {
			fmt.Fprintln(os.Stderr, "assemble-go: reading:", err)
			os.Exit(1)
		}
		var m message
		if err := json.Unmarshal(line, &m); err != nil {
			fmt.Fprintln(os.Stderr, "assemble-go: not a message:", err)
			os.Exit(1)
		}
		var reply any
		switch m.Cmd {
		case "start":
			reply = map[string]any{
				"protocol":       3,
				"implementation": map[string]string{"name": "assemble-go", "version": "0.1", "language": "go"},
				"wires":          []string{"chat", "responses", "anthropic", "ollama"},
			}
		case "stop":
			return
		default:
			reply = answer(m)
		}
		if err := out.Encode(reply); err != nil {
			os.Exit(1)
		}
	}
}
