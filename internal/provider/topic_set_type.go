package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

// terraform-plugin-framework v1.19.0 handles a set attribute in time that grows with the square
// of its size, twice: every conversion of the value (reading the configuration, writing the
// state) looks for duplicates by comparing every element with every other (basetypes.SetType's
// Validate), and after every read the semantic-equality check compares every new element with
// every prior one, building an attribute path each time (framework issues #1314 and #1322; the
// fix is not released). A topics set of 5,000 names costs tens of millions of comparisons. This
// set type does both in one pass over the strings: Validate with a map, and SetSemanticEquals,
// which ends the framework's element walk before it starts (ValueSemanticEqualitySet returns
// early when the type says "equal"). The value is the same set of strings in state and in the
// schema's JSON: no user sees a change.

// topicSetType is the type of a topics argument: a set of strings.
type topicSetType struct {
	basetypes.SetType
}

var _ basetypes.SetTypable = topicSetType{}

func newTopicSetType() topicSetType {
	return topicSetType{SetType: basetypes.SetType{ElemType: types.StringType}}
}

func (t topicSetType) Equal(o attr.Type) bool {
	other, ok := o.(topicSetType)
	return ok && t.SetType.Equal(other.SetType)
}

func (t topicSetType) String() string { return "topicSetType" }

func (t topicSetType) ValueFromSet(_ context.Context, in basetypes.SetValue) (basetypes.SetValuable, diag.Diagnostics) {
	return topicSetValue{SetValue: in}, nil
}

func (t topicSetType) ValueFromTerraform(ctx context.Context, in tftypes.Value) (attr.Value, error) {
	v, err := t.SetType.ValueFromTerraform(ctx, in)
	if err != nil {
		return nil, err
	}
	set, ok := v.(basetypes.SetValue)
	if !ok {
		return nil, fmt.Errorf("unexpected value type %T", v)
	}
	return topicSetValue{SetValue: set}, nil
}

func (t topicSetType) ValueType(_ context.Context) attr.Value { return topicSetValue{} }

// Validate is basetypes.SetType's check of a set of strings, with duplicates looked for in one
// pass; every other case (unknown, null, not a set of strings), and a set with a duplicate (which
// Terraform never sends), is left to it, as it words them.
func (t topicSetType) Validate(ctx context.Context, in tftypes.Value, p path.Path) diag.Diagnostics {
	var elems []tftypes.Value
	if in.Type() == nil || !in.Type().Is(tftypes.Set{ElementType: tftypes.String}) || !in.IsKnown() || in.IsNull() ||
		in.As(&elems) != nil {
		return t.SetType.Validate(ctx, in, p)
	}
	seen := make(map[string]bool, len(elems))
	for _, e := range elems {
		var s string
		if !e.IsFullyKnown() || e.IsNull() || e.As(&s) != nil {
			continue
		}
		if seen[s] {
			return t.SetType.Validate(ctx, in, p)
		}
		seen[s] = true
	}
	return nil
}

// topicSetValue is a topics argument's value.
type topicSetValue struct {
	basetypes.SetValue
}

var _ basetypes.SetValuableWithSemanticEquals = topicSetValue{}

func (v topicSetValue) Type(_ context.Context) attr.Type { return newTopicSetType() }

// Equal is SetValue.Equal in one pass (SetValue.Equal looks each element up in the other set:
// quadratic, 1.2 s of a 5,000-topic read): the sets hold the same strings, an unknown or null
// element equal only to another.
func (v topicSetValue) Equal(o attr.Value) bool {
	other, ok := o.(topicSetValue)
	return ok && v.sameStrings(other)
}

// SetSemanticEquals says whether prior holds the same strings as v: for strings, semantic
// equality is equality.
func (v topicSetValue) SetSemanticEquals(_ context.Context, prior basetypes.SetValuable) (bool, diag.Diagnostics) {
	p, ok := prior.(topicSetValue)
	return ok && v.sameStrings(p), nil
}

// sameStrings says whether p holds the same strings as v, counting each once, in one pass;
// unknown and null values are equal only to the same.
func (v topicSetValue) sameStrings(p topicSetValue) bool {
	if v.IsNull() != p.IsNull() || v.IsUnknown() != p.IsUnknown() {
		return false
	}
	if v.IsNull() || v.IsUnknown() {
		return true
	}
	mine, theirs := v.Elements(), p.Elements()
	if len(mine) != len(theirs) {
		return false
	}
	seen := make(map[string]bool, len(mine))
	for _, e := range mine {
		seen[e.String()] = true
	}
	for _, e := range theirs {
		if !seen[e.String()] {
			return false
		}
	}
	return true
}
