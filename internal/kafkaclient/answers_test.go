package kafkaclient

import (
	"testing"

	"github.com/segmentio/kafka-go/protocol/findcoordinator"
	"github.com/segmentio/kafka-go/protocol/metadata"
)

// An answer of the expected type passes through; another type is an error naming the request
// and the type that came.
func TestAnswerAs(t *testing.T) {
	want := &metadata.Response{ClusterID: "c"}
	got, err := answerAs[*metadata.Response]("Metadata", want)
	if err != nil || got != want {
		t.Fatalf("answerAs(metadata) = %v, %v; want the same response", got, err)
	}
	_, err = answerAs[*metadata.Response]("Metadata from b:9092", &findcoordinator.Response{})
	if err == nil || err.Error() != "Metadata from b:9092: unexpected answer *findcoordinator.Response" {
		t.Fatalf("err = %v, want the request and the type that came", err)
	}
}
