package provider

import (
	"fmt"
	"regexp"
	"testing"
	"time"

	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
	"github.com/hashicorp/terraform-plugin-testing/knownvalue"
	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/hashicorp/terraform-plugin-testing/tfjsonpath"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/acctest"
)

// kafka_consumer_groups with fetch_timestamps (issue 17): each group's max_time_lag_ms over the
// partitions it has committed on. Four groups on two topics: behind on both (its largest time
// lag is the older topic's next record, C22's T0+10 s inside a batch), caught up (0), one that
// shares a partition with the first at another offset, and one whose commit lies past the log
// end (null: its age is unknown, so a gate on it cannot pass). The next records are the
// oracle's (franz-go's consumer at each commit); without fetch_timestamps every value is null.
func TestAccConsumerGroups_timeLag(t *testing.T) {
	k := acctest.Connect(t)
	prefix := acctest.TopicName(t, "")
	a, b := k.CreateTopic(prefix+"-a", 1, nil), k.CreateTopic(prefix+"-b", 2, nil) // a sorts first
	behind, caughtUp, other, pastEnd := prefix+"-behind", prefix+"-caught-up", prefix+"-other", prefix+"-past-end"
	t0 := time.Now().Add(-20 * time.Minute).Truncate(time.Millisecond)
	k.ProduceBatch(a, 0, "gzip", t0, t0.Add(10*time.Second), t0.Add(20*time.Second))
	k.ProduceBatch(b, 0, "zstd", t0.Add(5*time.Minute), t0.Add(6*time.Minute))
	k.ProduceBatch(b, 1, "none", t0.Add(7*time.Minute))
	k.CommitOffsets(behind, map[string]map[int32]int64{a: {0: 1}, b: {0: 1, 1: 1}}) // b/1 caught up
	k.CommitOffsets(caughtUp, map[string]map[int32]int64{a: {0: 3}, b: {0: 2}})
	k.CommitOffsets(other, map[string]map[int32]int64{a: {0: 2}})
	k.CommitOffsets(pastEnd, map[string]map[int32]int64{a: {0: 2}, b: {0: 9}})
	behindNext := oracleNext(t, k, a, 0, 1, 0, 1, t0.Add(10*time.Second))
	oracleNext(t, k, b, 0, 1, 0, 1, t0.Add(6*time.Minute)) // younger: not the group's largest
	oracleNone(t, k, b, 1, 1, 0)
	oracleNone(t, k, a, 0, 3, 0)
	oracleNone(t, k, b, 0, 2, 0)
	otherNext := oracleNext(t, k, a, 0, 2, 0, 2, t0.Add(20*time.Second))

	entries := []struct {
		groupsEntry
		maxTimeLag knownvalue.Check
	}{
		{groupsEntry{behind, "Empty", "", []string{a, b}, 3, "classic"}, nil},
		{groupsEntry{caughtUp, "Empty", "", []string{a, b}, 0, "classic"}, knownvalue.Int64Exact(0)},
		{groupsEntry{other, "Empty", "", []string{a}, 1, "classic"}, nil},
		{groupsEntry{pastEnd, "Empty", "", []string{a, b}, 1, "classic"}, knownvalue.Null()},
	}
	var w readWindow
	entries[0].maxTimeLag, entries[2].maxTimeLag = lagSince{&w, behindNext}, lagSince{&w, otherNext}
	var timed, plain []knownvalue.Check
	var want []groupsEntry
	for _, e := range entries {
		committed := knownvalue.ListExact([]knownvalue.Check{knownvalue.StringExact("committed")}) // admin commits: no member
		timed, plain = append(timed, e.check(e.maxTimeLag, committed)), append(plain, e.check(knownvalue.Null(), committed))
		want = append(want, e.groupsEntry)
	}
	args := fmt.Sprintf("group_id_regex = %q\n", regexp.QuoteMeta(prefix)+"-.*")
	const addr = "data.kafka_consumer_groups.test"
	resource.Test(t, resource.TestCase{
		ProtoV6ProviderFactories: protoV6ProviderFactories,
		Steps: []resource.TestStep{
			{
				PreConfig: w.open,
				Config:    consumerGroupsConfig(t, args+"fetch_timestamps = true"),
				ConfigStateChecks: []statecheck.StateCheck{
					groupsOracleAgrees{k: k, entries: want},
					statecheck.ExpectKnownValue(addr, tfjsonpath.New("groups"), knownvalue.ListExact(timed)),
				},
			},
			{
				Config:            consumerGroupsConfig(t, args),
				ConfigStateChecks: []statecheck.StateCheck{statecheck.ExpectKnownValue(addr, tfjsonpath.New("groups"), knownvalue.ListExact(plain))},
			},
		},
	})
}
