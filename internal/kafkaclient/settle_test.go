package kafkaclient

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"github.com/twmb/franz-go/pkg/kmsg"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/acctest"
)

func TestSettle(t *testing.T) {
	req := OffsetsRequest{Topic: "t"}
	for _, tc := range []struct {
		name                     string
		in                       PartitionOffsets
		wantErr                  bool
		wantMaxOffset, wantMaxTs string
	}{
		{"consistent", PartitionOffsets{Earliest: 2, Latest: 9, MaxTimestampOffset: ptr(5), MaxTimestamp: ptr(1000)}, false, "5", "1000"},
		{"max record deleted", PartitionOffsets{Earliest: 2, Latest: 9, MaxTimestampOffset: ptr(1), MaxTimestamp: ptr(1000)}, false, "null", "null"},
		{"max record without timestamp", PartitionOffsets{Earliest: 0, Latest: 9, MaxTimestampOffset: ptr(3), MaxTimestamp: ptr(-1)}, false, "3", "null"},
		{"max beyond latest", PartitionOffsets{Earliest: 0, Latest: 9, MaxTimestampOffset: ptr(9), MaxTimestamp: ptr(1)}, true, "", ""},
		{"timestamp offset beyond latest", PartitionOffsets{Earliest: 0, Latest: 9, TimestampOffset: ptr(50)}, true, "", ""},
		{"timestamp offset below earliest", PartitionOffsets{Earliest: 5, Latest: 9, TimestampOffset: ptr(4)}, true, "", ""},
		{"earliest above latest", PartitionOffsets{Earliest: 10, Latest: 5}, true, "", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := tc.in
			err := settle(req, &p)
			if tc.wantErr {
				if !errors.Is(err, errInconsistentOffsets) {
					t.Fatalf("got %v, want errInconsistentOffsets", err)
				}
				return
			}
			if err != nil || show(p.MaxTimestampOffset) != tc.wantMaxOffset || show(p.MaxTimestamp) != tc.wantMaxTs {
				t.Fatalf("got max offset %s, timestamp %s, %v; want %s, %s", show(p.MaxTimestampOffset), show(p.MaxTimestamp), err, tc.wantMaxOffset, tc.wantMaxTs)
			}
		})
	}
}

// Kafka answers the max-timestamp lookup without regard to the log start offset: after
// DeleteRecords past that record, it is gone, so null rather than an offset below earliest.
func TestMaxTimestampAfterDeleteRecords(t *testing.T) {
	c := newCluster(t, kfake.SeedTopics(1, "t"))
	base := time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)
	produceAt(t, c, "t", 0, base, base.Add(time.Hour), base.Add(time.Minute))
	adm, err := kgo.NewClient(kgo.SeedBrokers(c.ListenAddrs()...))
	if err != nil {
		t.Fatal(err)
	}
	defer adm.Close()
	var o kadm.Offsets
	o.Add(kadm.Offset{Topic: "t", Partition: 0, At: 2, LeaderEpoch: -1})
	if _, err := kadm.NewClient(adm).DeleteRecords(context.Background(), o); err != nil {
		t.Fatal(err)
	}
	cl := newClient(t, c, 3*time.Second)
	got, err := cl.Offsets(context.Background(), OffsetsRequest{Topic: "t", MaxTimestamp: true})
	if err != nil {
		t.Fatal(err)
	}
	if got[0].Earliest != 2 || got[0].Latest != 3 || got[0].MaxTimestampOffset != nil || got[0].MaxTimestamp != nil {
		t.Fatalf("got %+v (max %s at %s); want 2/3 with max null", got[0], show(got[0].MaxTimestampOffset), show(got[0].MaxTimestamp))
	}
}

// A group coordinator still loading (COORDINATOR_LOAD_IN_PROGRESS) is asked again.
func TestCoordinatorLoadingIsRetried(t *testing.T) {
	c := newCluster(t, withOffsetsTopic(), kfake.SeedTopics(1, "t"))
	produce(t, c, "t", 0, 4)
	acctest.FakeCommit(t, c, "g", "t", 0, 1)
	loading := 2
	c.ControlKey(int16(kmsg.DescribeGroups), func(r kmsg.Request) (kmsg.Response, error, bool) {
		if loading == 0 {
			return nil, nil, false
		}
		loading--
		c.KeepControl()
		req, _ := r.(*kmsg.DescribeGroupsRequest)
		resp := kmsg.NewPtrDescribeGroupsResponse()
		resp.Version = req.Version
		for _, g := range req.Groups {
			rg := kmsg.NewDescribeGroupsResponseGroup()
			rg.Group, rg.ErrorCode = g, 14
			resp.Groups = append(resp.Groups, rg)
		}
		return resp, nil, true
	})
	cl := newClient(t, c, 5*time.Second)
	got, err := cl.GroupOffsets(context.Background(), GroupOffsetsRequest{GroupID: "g"})
	if err != nil || len(got.Partitions) != 1 || *got.Partitions[0].Lag != 3 {
		t.Fatalf("got %+v, %v; want lag 3 once the coordinator has loaded", got, err)
	}
}

// A cluster where no group ever existed has no __consumer_offsets: the read says the group does
// not exist without FindCoordinator, which would make the broker create that topic. ListGroups on
// every broker, which creates nothing, decided it (twice: a "no" is asked again fresh).
func TestGroupReadOnClusterWithoutGroups(t *testing.T) {
	// kfake, like a fresh Kafka, has no __consumer_offsets
	c := newCluster(t, kfake.NumBrokers(3), kfake.SeedTopics(1, "t"))
	var (
		mu                 sync.Mutex
		coordinatorLookups int
		listedOn           = map[int32]int{}
	)
	c.Control(func(r kmsg.Request) (kmsg.Response, error, bool) {
		c.KeepControl()
		mu.Lock()
		defer mu.Unlock()
		switch kmsg.Key(r.Key()) {
		case kmsg.FindCoordinator:
			coordinatorLookups++
		case kmsg.ListGroups:
			listedOn[c.CurrentNode()]++
		}
		return nil, nil, false
	})
	cl := newClient(t, c, 3*time.Second)
	_, err := cl.GroupOffsets(context.Background(), GroupOffsetsRequest{GroupID: "g"})
	var gnf *GroupNotFoundError
	if !errors.As(err, &gnf) || !gnf.NoGroups {
		t.Fatalf("got %v; want GroupNotFoundError saying no group ever existed", err)
	}
	mu.Lock()
	defer mu.Unlock()
	if coordinatorLookups != 0 {
		t.Fatalf("sent %d FindCoordinator requests; want none", coordinatorLookups)
	}
	// Once per broker: the metadata that lacks __consumer_offsets was requested by this read, so
	// it is fresh and believed at once (kafka-go's cached layout took a second pass: 2 each).
	if want := map[int32]int{0: 1, 1: 1, 2: 1}; fmt.Sprint(listedOn) != fmt.Sprint(want) {
		t.Fatalf("ListGroups requests by broker: %v; want %v", listedOn, want)
	}
}
