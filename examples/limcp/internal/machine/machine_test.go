package machine

import (
	"bytes"
	"encoding/json"
	"go/ast"
	"go/parser"
	"go/token"
	"strings"
	"testing"
)

func TestWriteShapes(t *testing.T) {
	tests := []struct {
		name string
		r    Result
		want string
	}{
		{"success carries data", OK(map[string]int{"n": 1}), `{"result_version":1,"ok":true,"data":{"n":1}}`},
		{"success without data carries an empty object", OK(nil), `{"result_version":1,"ok":true,"data":{}}`},
		{"failure carries code, message and details", Fail(Errorf(UnknownID, map[string]any{"id": "x"}, "no record has id %q", "x")),
			`{"result_version":1,"ok":false,"error":{"code":"unknown_id","message":"no record has id \"x\"","details":{"id":"x"}}}`},
		{"HTML is not escaped", OK("<b>"), `{"result_version":1,"ok":true,"data":"<b>"}`},
		{"struct details are the object they encode to, numbers exact", Fail(Errorf(KillPartial,
			struct {
				Target string `json:"target"`
				Grace  string `json:"grace"`
				Big    uint64 `json:"big"`
			}{"p1", "5s", 1<<63 + 1}, "partial")),
			`{"result_version":1,"ok":false,"error":{"code":"kill_partial","message":"partial","details":{"big":9223372036854775809,"grace":"5s","target":"p1"}}}`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := Write(&b, tt.r); err != nil {
				t.Fatal(err)
			}
			if got := strings.TrimSuffix(b.String(), "\n"); got != tt.want {
				t.Fatalf("Write = %s; want %s", got, tt.want)
			}
			if strings.Count(b.String(), "\n") != 1 || !json.Valid(b.Bytes()) {
				t.Fatalf("not one JSON object on one line: %q", b.String())
			}
		})
	}
}

// TestCodesIsTheWholeClosedSet parses errors.go: every constant of type
// Code is listed in Codes, exactly once, and no two share a value.
func TestCodesIsTheWholeClosedSet(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "errors.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	declared := map[string]bool{}
	ast.Inspect(f, func(n ast.Node) bool {
		if vs, ok := n.(*ast.ValueSpec); ok {
			if id, ok := vs.Type.(*ast.Ident); ok && id.Name == "Code" {
				for _, name := range vs.Names {
					declared[name.Name] = true
				}
			}
		}
		return true
	})
	if len(declared) != len(Codes) {
		t.Fatalf("%d Code constants declared, %d listed in Codes", len(declared), len(Codes))
	}
	values := map[Code]bool{}
	for _, c := range Codes {
		if values[c] {
			t.Fatalf("code %s listed twice", c)
		}
		values[c] = true
	}
}

func TestErrorImplementsTheRunnerErrorInterface(t *testing.T) {
	var err error = Errorf(KillPartial, map[string]any{"id": "p"}, "partial")
	coded, ok := err.(interface {
		ErrorCode() string
		ErrorDetails() map[string]any
	})
	if !ok || coded.ErrorCode() != "kill_partial" || coded.ErrorDetails()["id"] != "p" {
		t.Fatalf("%#v", err)
	}
	if me, ok := As(err); !ok || me.Code != KillPartial {
		t.Fatal("As did not find the error")
	}
}
