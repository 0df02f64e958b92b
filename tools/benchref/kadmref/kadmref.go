// Package kadmref is the Kafka side of the kadm reference (tools/benchref): the big reads as
// franz-go's kadm does them. tools/bench also calls it directly, as kadm's own client without
// Terraform: the lower bound of the big reads. Test-only code: never released.
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

// GroupsLag reads every group's lag with kadm the way this provider does it: ListGroups,
// OffsetFetch of every group (FetchManyOffsets), the end offsets of the committed topics, and
// DescribeGroups only for groups with members (not Empty). kadm's own Lag describes every group,
// which this provider does not need for groups without members; this is the same work. fn is
// called for each group, sorted by id, with its topics and total lag.
func GroupsLag(ctx context.Context, adm *kadm.Client, fn func(group kadm.ListedGroup, topics []string, lag int64)) error {
	listed, err := adm.ListGroups(ctx)
	if err != nil {
		return err
	}
	var withMembers []string
	for _, g := range listed {
		if g.State != "Empty" {
			withMembers = append(withMembers, g.Group)
		}
	}
	if len(withMembers) > 0 {
		described, err := adm.DescribeGroups(ctx, withMembers...)
		if err == nil {
			err = described.Error()
		}
		if err != nil {
			return err
		}
	}
	fetched := adm.FetchManyOffsets(ctx, listed.Groups()...)
	if err := fetched.Error(); err != nil {
		return err
	}
	var ends kadm.ListedOffsets
	if topics := fetched.CommittedPartitions().Topics(); len(topics) > 0 {
		ends, err = adm.ListEndOffsets(ctx, topics...)
		if err == nil {
			err = ends.Error()
		}
		if err != nil {
			return err
		}
	}
	for _, id := range listed.Sorted() {
		var topics []string
		var total int64
		fetched[id.Group].Fetched.Each(func(o kadm.OffsetResponse) {
			if o.Err != nil || o.At < 0 {
				return
			}
			topics = append(topics, o.Topic)
			if e, ok := ends.Lookup(o.Topic, o.Partition); ok {
				total += max(e.Offset-o.At, 0)
			}
		})
		sort.Strings(topics)
		fn(id, slices.Compact(topics), total)
	}
	return nil
}
