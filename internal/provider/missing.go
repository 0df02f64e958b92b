package provider

import (
	"errors"
	"maps"

	"github.com/hashicorp/terraform-plugin-go/tftypes"

	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/kafkaclient"
)

// Missing on purpose: a data source that names one group or one topic can read its
// absence as a value, for the plans of a first rollout (the group does not exist yet) and those
// after a topic's deletion, where an error would stop every plan before a precondition could
// decide. Opt-in: without allow_missing the error stays, and with it nothing missing ever reads as
// caught up or drained.

// allowMissingAttribute is the opt-in; what names the thing ("consumer group", "topic") and
// reads how it then reads.
func allowMissingAttribute(what, reads string) schema.BoolAttribute {
	return schema.BoolAttribute{
		Optional: true,
		MarkdownDescription: "`true` reads a " + what + " that does not exist as `exists = false` instead of failing " +
			"with `" + missingTitle(what) + "`: " + reads + " Default `false`: the error stays, which is what a " +
			"gate wants where the " + what + " must exist.",
	}
}

// existsAttribute says whether the read found it.
func existsAttribute(what string) schema.BoolAttribute {
	return schema.BoolAttribute{Computed: true, MarkdownDescription: "Whether the " + what + " exists: `true` " +
		"on every read that succeeds, `false` only with `allow_missing = true` when it does not."}
}

// missingTitle is the error's summary without the opt-in (diagnostics.go).
func missingTitle(what string) string {
	if what == "topic" {
		return "Topic not found"
	}
	return "Consumer group not found"
}

// topicMissing: err says the topic does not exist and the configuration allows that.
func topicMissing(err error, allow bool) bool {
	var notFound *kafkaclient.TopicNotFoundError
	return allow && errors.As(err, &notFound)
}

// missingTopic is the state of a topic read with allow_missing that found no topic: no
// partition, and no count that could read as drained.
var missingTopic = tfAttrs{"exists": tfBool(false), "partition_count": tfInt64(0)}

// withEmptyList is attrs with an empty list of elemType as name: a missing thing has none, and
// length() of a null list is an error in Terraform.
func withEmptyList(attrs tfAttrs, name string, elemType tftypes.Type) tfAttrs {
	out := maps.Clone(attrs)
	out[name] = tftypes.NewValue(tftypes.List{ElementType: elemType}, []tftypes.Value{})
	return out
}

// missingReason is not_caught_up's line for a group that allow_missing reads as missing, with the
// near ids its coordinator listed.
func missingReason(missing *kafkaclient.GroupNotFoundError) string {
	if s := didYouMean(missing.Suggestions); s != "" {
		return missing.Error() + "." + s
	}
	return missing.Error()
}
