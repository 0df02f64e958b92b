package kafkaclient

import (
	"fmt"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// answerAs is a round trip's answer m as the response type T of its request. The broker package
// decodes an answer by its request's API key, so another type means a bug, not a broker's doing:
// the error names op and the type that came.
func answerAs[T kmsg.Response](op string, m kmsg.Response) (T, error) {
	res, ok := m.(T)
	if !ok {
		return res, fmt.Errorf("%s: unexpected answer %T", op, m)
	}
	return res, nil
}
