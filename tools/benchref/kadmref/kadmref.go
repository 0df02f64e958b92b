// Package kadmref is the Kafka side of the kadm reference (tools/benchref): the big reads as
// franz-go's kadm does them. tools/bench also calls it directly, as kadm's own client without
// Terraform: the lower bound of issue 21's big reads. Test-only code: never released.
package kadmref

import (
	"context"
	"regexp"
	"slices"
	"sort"

	"github.com/twmb/franz-go/pkg/kadm"
)

// TopicsOffsets lists the start and end offsets of every non-internal topic with kadm and calls
// fn for each topic, sorted by name. tools/bench calls it too, as kadm's own client.
func TopicsOffsets(ctx context.Context, adm *kadm.Client, fn func(name string, partitions, messages int64)) error {
	start, err := adm.ListStartOffsets(ctx)
	if err == nil {
		err = start.Error()
	}
	if err != nil {
		return err
	}
	end, err := adm.ListEndOffsets(ctx)
	if err == nil {
		err = end.Error()
	}
	if err != nil {
		return err
	}
	names := make([]string, 0, len(end))
	for t := range end {
		if !internalTopic.MatchString(t) {
			names = append(names, t)
		}
	}
	slices.Sort(names)
	for _, t := range names {
		var messages int64
		for p, e := range end[t] {
			s, _ := start.Lookup(t, p)
			messages += e.Offset - s.Offset
		}
		fn(t, int64(len(end[t])), messages)
	}
	return nil
}

// internalTopic: kadm's ListedOffsets do not say which topics are internal; these are Kafka's.
var internalTopic = regexp.MustCompile(`^__(consumer_offsets|transaction_state|share_group_state)$`)

// GroupsLag reads every group's lag with kadm's Lag (DescribeGroups, OffsetFetch, ListOffsets)
// and calls fn for each group, sorted by id, with its topics and total lag. tools/bench calls it
// too, as kadm's own client.
func GroupsLag(ctx context.Context, adm *kadm.Client, fn func(l kadm.DescribedGroupLag, topics []string, lag int64)) error {
	lags, err := adm.Lag(ctx)
	if err == nil {
		err = lags.Error()
	}
	if err != nil {
		return err
	}
	for _, l := range lags.Sorted() {
		topics := make([]string, 0, len(l.Lag))
		var total int64
		for t, ps := range l.Lag {
			topics = append(topics, t)
			for _, p := range ps {
				total += max(p.Lag, 0)
			}
		}
		sort.Strings(topics)
		fn(l, topics, total)
	}
	return nil
}
