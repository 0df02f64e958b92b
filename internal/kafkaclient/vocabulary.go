package kafkaclient

import (
	"cmp"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// The package's shared terms: a partition of a topic, a partition with its leader, and how an
// error names a set of partitions. Every read speaks them, whatever its room.

// topicPartition names one partition of one topic.
type topicPartition struct {
	topic     string
	partition int
}

// partitionLeader is one partition of a read and its leader. A read takes them in any order,
// and costs least with each topic's partitions together: it then finds each topic once
// (topicRuns), where a million partitions cost a million lookups of their topic's name.
type partitionLeader struct {
	topicPartition
	leader leader
}

// partitionLeaders is leaders as a read takes them, by topic and partition.
func partitionLeaders(leaders map[topicPartition]leader) []partitionLeader {
	out := make([]partitionLeader, 0, len(leaders))
	for tp, l := range leaders {
		out = append(out, partitionLeader{tp, l})
	}
	slices.SortFunc(out, func(a, b partitionLeader) int {
		return cmp.Or(strings.Compare(a.topic, b.topic), cmp.Compare(a.partition, b.partition))
	})
	return out
}

// describePartitions names partitions for an error: `topic "a" partitions 0, 1` (all of one
// topic), or the first few topics.
func describePartitions(partitions []topicPartition) string {
	var names []string
	for _, tp := range partitions {
		names = append(names, tp.topic)
	}
	slices.Sort(names)
	names = slices.Compact(names)
	if len(names) == 1 {
		ids := make([]int32, len(partitions))
		for i, tp := range partitions {
			ids[i] = int32(tp.partition)
		}
		slices.Sort(ids)
		return fmt.Sprintf("topic %q partition%s %s", names[0], plural(len(ids)), joinInts(ids))
	}
	const shown = 3
	quoted := make([]string, 0, shown)
	for _, n := range names[:min(shown, len(names))] {
		quoted = append(quoted, fmt.Sprintf("%q", n))
	}
	if len(names) > shown {
		return fmt.Sprintf("topics %s and %d more", strings.Join(quoted, ", "), len(names)-shown)
	}
	return "topics " + strings.Join(quoted, ", ")
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func joinInts(ps []int32) string {
	s := make([]string, len(ps))
	for i, p := range ps {
		s[i] = strconv.Itoa(int(p))
	}
	return strings.Join(s, ", ")
}

// deref is a nullable string of a kmsg message, "" for null.
func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}
