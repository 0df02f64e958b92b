package kafkaclient

// Near matches of a name the cluster does not have ("did you mean"), from names a read already
// holds: never a request of their own. Each source lists only names the principal may see
// (Metadata leaves out the topics it may not DESCRIBE; ListGroups the groups it may not DESCRIBE,
// unless it may DESCRIBE the cluster, which lets it list them all).

import (
	"cmp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/agext/levenshtein"
	"github.com/twmb/franz-go/pkg/kmsg"
)

// maxSuggestions bounds the names one error suggests.
const maxSuggestions = 3

// suggest is the names of candidates closest to name, closest first: those equal but for case,
// then those within a few edits (a quarter of the name's length, at least 1, at most 3), ties by
// name. name itself is never suggested.
func suggest(name string, candidates []string) []string {
	maxEdits := min(max(len(name)/4, 1), 3)
	type near struct {
		name  string
		edits int // -1: equal but for case
	}
	var found []near
	for _, c := range candidates {
		switch {
		case c == name:
		case strings.EqualFold(c, name):
			found = append(found, near{c, -1})
		case abs(utf8.RuneCountInString(c)-utf8.RuneCountInString(name)) > maxEdits: // at least that many edits
		default:
			// The whole distance: the library's MaxCost shortcut can answer less than the distance
			// past it (8 edits read as 3), so it is not used.
			if d := levenshtein.Distance(name, c, nil); d <= maxEdits {
				found = append(found, near{c, d})
			}
		}
	}
	slices.SortFunc(found, func(a, b near) int { return cmp.Or(cmp.Compare(a.edits, b.edits), strings.Compare(a.name, b.name)) })
	found = slices.CompactFunc(found, func(a, b near) bool { return a.name == b.name })
	out := make([]string, 0, min(len(found), maxSuggestions))
	for _, n := range found[:min(len(found), maxSuggestions)] {
		out = append(out, n.name)
	}
	return out
}

// knownTopics is every topic a Metadata answer of this Client has described (no error code): the
// topics the principal may DESCRIBE, as far as the reads so far asked.
func (l *layout) knownTopics() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	names := make([]string, 0, len(l.topics))
	for name, t := range l.topics {
		if t.code == 0 {
			names = append(names, name)
		}
	}
	return names
}

// existingTopics is every topic md describes (no error code).
func (md *clusterMetadata) existingTopics() []string {
	names := make([]string, 0, len(md.topics))
	for _, t := range md.topics {
		if t.code == 0 {
			names = append(names, t.name)
		}
	}
	return names
}

// groupIDs is the ids of groups, one broker's ListGroups answer.
func groupIDs(groups []kmsg.ListGroupsResponseGroup) []string {
	ids := make([]string, len(groups))
	for i, g := range groups {
		ids[i] = g.Group
	}
	return ids
}

func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}
