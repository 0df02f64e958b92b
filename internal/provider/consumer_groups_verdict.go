package provider

import (
	"strings"

	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/types"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/kafkaclient"
)

// The top-level values of kafka_consumer_groups: one verdict over every selected group, so that a
// gate reads one value, and a terraform test mock sets one (a mock cannot set a nested list:
// hashicorp/terraform#37939).

// reasonsPerGroup bounds each group's line in the top-level not_caught_up; the group's own
// not_caught_up in groups has every reason.
const reasonsPerGroup = 3

var (
	groupIDsAttribute = schema.ListAttribute{ElementType: types.StringType, Computed: true,
		MarkdownDescription: "The `group_id` of every selected group, sorted: with `topics`, the groups that read them " +
			"(see `listed_because`). `[]` when no group is selected."}
	groupsCaughtUpAttribute = schema.BoolAttribute{Computed: true,
		MarkdownDescription: "The verdict over every selected group, never `null`: `true` only when at least one group " +
			"is selected and each is `caught_up` (see `groups`). `false` when no group is selected, so a gate that also " +
			"allows a topic nobody reads says so: `caught_up || length(group_ids) == 0`."}
	groupsNotCaughtUpAttribute = schema.ListAttribute{ElementType: types.StringType, Computed: true,
		MarkdownDescription: "Why `caught_up` is `false`, one line per group that is not caught up, sorted by group " +
			"id: `<group_id>: ` and its first reasons from its own `not_caught_up` (`; and N more` after three); or " +
			"one line starting `no group selected` when none is. Empty (`[]`, never `null`) exactly when `caught_up` is " +
			"`true`. Safe to interpolate in an `error_message`: `join(\"; \", ….not_caught_up)`."}
)

// groupsVerdict is the top-level values of a read that selected groups, by the topics and the
// group id pattern the configuration gave (nil and "" when unset).
func groupsVerdict(groups []kafkaclient.GroupSummary, topics []string, idRegex string) tfAttrs {
	ids := make([]string, len(groups))
	reasons := make([]string, 0)
	for i, g := range groups {
		ids[i] = g.GroupID
		if !g.CaughtUp {
			reasons = append(reasons, g.GroupID+": "+g.Reasons(reasonsPerGroup))
		}
	}
	if len(groups) == 0 {
		reasons = append(reasons, noGroupSelected(topics, idRegex))
	}
	return tfAttrs{
		"group_ids":     tfStrings(ids),
		"caught_up":     tfBool(len(reasons) == 0),
		"not_caught_up": tfStrings(reasons),
	}
}

// noGroupSelected says which selection matched no group.
func noGroupSelected(topics []string, idRegex string) string {
	var why []string
	if len(topics) > 0 {
		why = append(why, "reads "+strings.Join(topics, ", "))
	}
	if idRegex != "" {
		why = append(why, "has an id matching "+idRegex)
	}
	if len(why) == 0 {
		return "no group selected: the cluster has no group the principal may DESCRIBE"
	}
	return "no group selected: none " + strings.Join(why, " and ")
}
