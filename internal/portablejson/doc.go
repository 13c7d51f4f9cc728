// Package portablejson checks that a JSON text is one every client of the
// tool can decode, not only one encoding/json accepts.
//
// Valid JSON is not enough. The go-sdk's own client refuses a message
// nesting deeper than 1,000 levels (encoding/json accepts 10,000), a
// number beyond the range of a double (1e400) cannot be decoded into one,
// and a \u escape of half a surrogate pair names no character. One such
// value in an op's result made the whole tools/call fail on the client,
// taking the other ops' results (a submit's run id) with it.
package portablejson
