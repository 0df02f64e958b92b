package wire_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/kafkaclient/wire"
)

// A classic consumer's member assignment decodes as kmsg encodes it, in each version of the
// consumer protocol; no bytes (a member between assignments) are no partitions; bytes that claim
// more than they hold are refused.
func TestClassicAssignment(t *testing.T) {
	for v := int16(0); v <= 3; v++ {
		a := kmsg.ConsumerMemberAssignment{Version: v, Topics: []kmsg.ConsumerMemberAssignmentTopic{
			{Topic: "t", Partitions: []int32{0, 2}}, {Topic: "u", Partitions: []int32{1}},
		}, UserData: []byte("x")}
		got, err := wire.ClassicAssignment(a.AppendTo(nil))
		if err != nil {
			t.Fatalf("v%d: %v", v, err)
		}
		if diff := cmp.Diff(map[string][]int32{"t": {0, 2}, "u": {1}}, got); diff != "" {
			t.Errorf("v%d (-want +got):\n%s", v, diff)
		}
	}
	if got, err := wire.ClassicAssignment(nil); err != nil || len(got) != 0 {
		t.Errorf("no bytes: %v, %v; want no partitions", got, err)
	}
	for _, tc := range []struct {
		name string
		b    []byte
	}{
		{name: "a topic count above the bytes", b: []byte{0, 0, 0x7f, 0xff, 0xff, 0xff}},
		{name: "a topic name cut short", b: []byte{0, 0, 0, 0, 0, 1, 0, 5, 't'}},
		{name: "a partition cut short", b: []byte{0, 0, 0, 0, 0, 1, 0, 1, 't', 0, 0, 0, 1, 0, 0}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got, err := wire.ClassicAssignment(tc.b); err == nil {
				t.Errorf("got %v, want an error", got)
			}
		})
	}
}
