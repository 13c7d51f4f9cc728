package fromcobrabin_test

import "encoding/json"

func fmtAny(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return err.Error()
	}
	return string(b)
}
