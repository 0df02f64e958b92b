package kafkaclient

import (
	"strings"
	"testing"
)

func TestUnknownErrorCodeIsNamed(t *testing.T) {
	e := &BrokerError{Op: "ListOffsets (latest)", Topic: "t", Partition: 0, Code: 9999}
	if want := "ListOffsets (latest) for topic \"t\" partition 0: broker answered an error code unknown to this provider (error code 9999)"; !strings.HasPrefix(e.Error(), want) {
		t.Fatalf("got %q, want it to start with %q", e.Error(), want)
	}
}
