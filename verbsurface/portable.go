package verbsurface

import (
	"encoding/json"
	"fmt"

	"github.com/verbsurface/verbsurface/internal/portablejson"
)

// portable makes r a result every client can decode (see package
// internal/portablejson: no nesting past 512 levels, no number beyond a
// double, no half surrogate pair). Without it, one such value failed the
// whole tools/call on the go-sdk's own client and the other ops' results
// were lost with it. A success that is not becomes invalid_result naming
// why (the op ran); a failure's details that are not are replaced by a
// sentence saying so. package dispatch refuses such output first, with an
// excerpt; this catches every other runner and handler.
func portable(r *OpResult) {
	if r.OK {
		if err := portablejson.Check(r.Result); err != nil {
			r.OK, r.Result, r.Info = false, nil, nil
			r.Error = &ErrorObject{Code: CodeInvalidResult,
				Message: fmt.Sprintf("the result of %s is JSON that not every client can decode: %v; the op ran, its result is dropped", short(r.Op), err)}
		}
		return
	}
	if r.Error == nil || r.Error.Details == nil {
		return
	}
	b, err := json.Marshal(r.Error.Details)
	if err != nil {
		return // Response.JSON reports an unencodable result as it is
	}
	if err := portablejson.Check(b); err != nil {
		r.Error.Details = map[string]any{"problem": "the details of this error are JSON that not every client can decode: " + err.Error()}
	}
}
