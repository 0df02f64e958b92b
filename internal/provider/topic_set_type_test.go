package provider

import (
	"context"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// The topics set type answers as basetypes.SetType would: the same diagnostics from Validate,
// and semantic equality exactly when the two sets hold the same strings.
func TestTopicSetType(t *testing.T) {
	ctx := context.Background()
	set := func(names ...string) tftypes.Value {
		elems := make([]tftypes.Value, len(names))
		for i, n := range names {
			elems[i] = tftypes.NewValue(tftypes.String, n)
		}
		return tftypes.NewValue(tftypes.Set{ElementType: tftypes.String}, elems)
	}
	for _, tc := range []struct {
		name string
		in   tftypes.Value
	}{
		{name: "distinct", in: set("a", "b", "c")},
		{name: "a duplicate", in: set("a", "b", "a")},
		{name: "null", in: tftypes.NewValue(tftypes.Set{ElementType: tftypes.String}, nil)},
		{name: "unknown", in: tftypes.NewValue(tftypes.Set{ElementType: tftypes.String}, tftypes.UnknownValue)},
		{name: "not a set", in: tftypes.NewValue(tftypes.String, "a")},
	} {
		t.Run("Validate/"+tc.name, func(t *testing.T) {
			p := path.Root("topics")
			want := basetypes.SetType{ElemType: types.StringType}.Validate(ctx, tc.in, p)
			if got := newTopicSetType().Validate(ctx, tc.in, p); !got.Equal(want) {
				t.Errorf("Validate = %v, want basetypes.SetType's %v", got, want)
			}
		})
	}

	unknownElement := func(known string) topicSetValue {
		return topicSetValue{SetValue: types.SetValueMust(types.StringType, []attr.Value{types.StringValue(known), types.StringUnknown()})}
	}
	value := func(names ...string) topicSetValue {
		elems := make([]attr.Value, len(names))
		for i, n := range names {
			elems[i] = types.StringValue(n)
		}
		return topicSetValue{SetValue: types.SetValueMust(types.StringType, elems)}
	}
	for _, tc := range []struct {
		name        string
		prior, next topicSetValue
		want        bool
	}{
		{name: "same strings, another order", prior: value("a", "b", "c"), next: value("c", "a", "b"), want: true},
		{name: "one differs", prior: value("a", "b", "c"), next: value("a", "b", "d"), want: false},
		{name: "one more", prior: value("a", "b"), next: value("a", "b", "c"), want: false},
		{name: "null and empty", prior: topicSetValue{SetValue: types.SetNull(types.StringType)}, next: value(), want: false},
		{name: "both null", prior: topicSetValue{SetValue: types.SetNull(types.StringType)}, next: topicSetValue{SetValue: types.SetNull(types.StringType)}, want: true},
		{name: "unknown and known", prior: topicSetValue{SetValue: types.SetUnknown(types.StringType)}, next: value("a"), want: false},
		{name: "an unknown element", prior: unknownElement("a"), next: unknownElement("a"), want: true},
		{name: "an unknown element and a known one", prior: unknownElement("a"), next: value("a", "b"), want: false},
	} {
		t.Run("Equal/"+tc.name, func(t *testing.T) { // one pass; the same answer as basetypes' quadratic Equal
			if got, want := tc.next.Equal(tc.prior), tc.next.SetValue.Equal(tc.prior.SetValue); got != tc.want || got != want {
				t.Errorf("Equal = %v, want %v (basetypes.SetValue.Equal: %v)", got, tc.want, want)
			}
		})
		t.Run("SetSemanticEquals/"+tc.name, func(t *testing.T) {
			got, diags := tc.next.SetSemanticEquals(ctx, tc.prior)
			if diags.HasError() || got != tc.want {
				t.Errorf("SetSemanticEquals = %v (%v), want %v", got, diags, tc.want)
			}
			if want := tc.next.SetValue.Equal(tc.prior.SetValue); got != want {
				t.Errorf("SetSemanticEquals = %v, basetypes.SetValue.Equal = %v", got, want)
			}
		})
	}
}
