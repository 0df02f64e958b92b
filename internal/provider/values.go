package provider

// The one way every data source reads its configuration and writes its state: attribute by
// attribute, as values, never through a tfsdk-tagged model. The framework's reflection over a
// model (Config.Get, State.Set, types.ListValueFrom) compiles a regular expression for every field
// of every object on every call (terraform-plugin-framework#725): 40 % of kafka_partition_offsets'
// own CPU time, a read a plan makes thousands of times, and most of it for the big lists, whose
// attr.Values State.Set converts once more (BenchmarkReadTopicOffsets10k,
// BenchmarkReadConsumerGroupsBig). So a Read takes each argument with configValue, builds its
// results as Terraform values with the tf* constructors below, and writes them with setState.
// Nothing else in a data source converts between framework and Terraform values (the topics set
// type, topic_set_type.go, works around the framework's sets, a separate matter).

import (
	"context"
	"maps"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/tfsdk"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// configValue is the top-level attribute (or block) name of a data source's configuration as T,
// the value type its schema gives it (types.String, timetypes.RFC3339, topicSetValue): the value
// the framework has already converted and checked, taken as it is, with no reflection. Any other
// T, such as a block's model (*groupWaitModel), goes through the framework's reflection and its
// diagnostics, as it did in Config.Get.
func configValue[T any](ctx context.Context, config tfsdk.Config, name string, diags *diag.Diagnostics) T {
	var v attr.Value
	if !config.GetAttribute(ctx, path.Root(name), &v).HasError() {
		if t, ok := v.(T); ok {
			return t
		}
	}
	var t T
	diags.Append(config.GetAttribute(ctx, path.Root(name), &t)...)
	return t
}

// tfAttrs is attributes of a data source's state, or of an entry of a nested list, as Terraform
// values.
type tfAttrs map[string]tftypes.Value

// setState sets attributes of a data source's state, which the framework starts as a copy of the
// configuration, to values, and leaves the others (the arguments) as configured. A value that does
// not fit the schema panics, as types.ListValueMust does: the types come from the schema, so that
// is a bug here.
func setState(state *tfsdk.State, values tfAttrs) {
	attrs := map[string]tftypes.Value{}
	if err := state.Raw.As(&attrs); err != nil {
		panic("a data source's state is not an object: " + err.Error())
	}
	maps.Copy(attrs, values)
	state.Raw = tftypes.NewValue(state.Raw.Type(), attrs)
}

// nestedObjectType is the Terraform type of a nested attribute's entries, from its schema, so that
// the attribute types are written once.
func nestedObjectType(elem schema.NestedAttributeObject) tftypes.Type {
	attrTypes := make(map[string]tftypes.Type, len(elem.Attributes))
	for name, a := range elem.Attributes {
		attrTypes[name] = a.GetType().TerraformType(context.Background())
	}
	return tftypes.Object{AttributeTypes: attrTypes}
}

// tfNestedList is a list nested attribute's value: one entry of elemType (nestedObjectType) per
// item, whose attributes entry gives.
func tfNestedList[T any](elemType tftypes.Type, items []T, entry func(T) tfAttrs) tftypes.Value {
	values := make([]tftypes.Value, len(items))
	for i, item := range items {
		values[i] = tftypes.NewValue(elemType, map[string]tftypes.Value(entry(item)))
	}
	return tftypes.NewValue(tftypes.List{ElementType: elemType}, values)
}

// The Terraform types of the values below, boxed once: tftypes.String is a struct, which a call of
// tftypes.NewValue would otherwise copy to the heap for every value.
var (
	tfStringType     tftypes.Type = tftypes.String
	tfNumberType     tftypes.Type = tftypes.Number
	tfBoolType       tftypes.Type = tftypes.Bool
	tfStringListType tftypes.Type = tftypes.List{ElementType: tftypes.String}
)

// tfStrings is a list of strings; empty, not null, for none.
func tfStrings(s []string) tftypes.Value {
	values := make([]tftypes.Value, len(s))
	for i, v := range s {
		values[i] = tfString(v)
	}
	return tftypes.NewValue(tfStringListType, values)
}

func tfString(s string) tftypes.Value { return tftypes.NewValue(tfStringType, s) }

// tfStringOrNull is null for "" (a value the broker did not give).
func tfStringOrNull(s string) tftypes.Value {
	if s == "" {
		return tftypes.NewValue(tfStringType, nil)
	}
	return tfString(s)
}

func tfInt64(v int64) tftypes.Value { return tftypes.NewValue(tfNumberType, v) }

// tfInt64OrNull is null for nil.
func tfInt64OrNull(v *int64) tftypes.Value {
	if v == nil {
		return tftypes.NewValue(tfNumberType, nil)
	}
	return tfInt64(*v)
}

func tfBool(b bool) tftypes.Value { return tftypes.NewValue(tfBoolType, b) }

// tfTime is optionalTime as a Terraform value: Kafka milliseconds as RFC 3339 in UTC, for an
// attribute of timetypes.RFC3339Type; null for nil.
func tfTime(ms *int64) tftypes.Value { return tfStringOrNull(optionalTime(ms).ValueString()) }
