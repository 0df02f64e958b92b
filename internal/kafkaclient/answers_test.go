package kafkaclient

import (
	"testing"

	"github.com/twmb/franz-go/pkg/kmsg"
)

// An answer of the expected type passes through; another type is an error naming the request
// and the type that came.
func TestAnswerAs(t *testing.T) {
	want := &kmsg.MetadataResponse{ControllerID: 3}
	got, err := answerAs[*kmsg.MetadataResponse]("Metadata", want)
	if err != nil || got != want {
		t.Fatalf("answerAs(metadata) = %v, %v; want the same response", got, err)
	}
	_, err = answerAs[*kmsg.MetadataResponse]("Metadata from b:9092", &kmsg.FindCoordinatorResponse{})
	if err == nil || err.Error() != "Metadata from b:9092: unexpected answer *kmsg.FindCoordinatorResponse" {
		t.Fatalf("err = %v, want the request and the type that came", err)
	}
}
