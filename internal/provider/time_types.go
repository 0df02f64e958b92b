package provider

// The types of the duration and time arguments (timeout, the wait block's durations, timestamp):
// timetypes' GoDuration and RFC3339, parsed by timetypes, with one clear error for a malformed
// value. timetypes' own error (v0.5.0) shows a literal `\n\nGiven Value:` and then an `Error:`
// line that reads like a second error; these types report what was given and the form wanted,
// with an example, on the attribute. The bounds are checked by the attributes' validators.

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework-timetypes/timetypes"
	"github.com/hashicorp/terraform-plugin-framework/attr"
	"github.com/hashicorp/terraform-plugin-framework/attr/xattr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
)

var (
	_ basetypes.StringTypable                    = goDurationType{}
	_ basetypes.StringValuableWithSemanticEquals = goDurationValue{}
	_ xattr.ValidateableAttribute                = goDurationValue{}
	_ basetypes.StringTypable                    = rfc3339Type{}
	_ basetypes.StringValuableWithSemanticEquals = rfc3339Value{}
	_ xattr.ValidateableAttribute                = rfc3339Value{}
)

// invalidDurationDetail says that s is not a Go duration, and what one looks like.
func invalidDurationDetail(s string) string {
	return fmt.Sprintf("%q is not a Go duration: want a number with a unit (ns, us, ms, s, m, h), "+
		"such as \"30s\", \"10m\" or \"1h30m\".", s)
}

// invalidTimestampDetail says that s is not an RFC 3339 time, and what one looks like.
func invalidTimestampDetail(s string) string {
	return fmt.Sprintf("%q is not an RFC 3339 time: want a date, \"T\", a time and a time zone, "+
		"such as \"2026-11-01T12:00:00Z\" or \"2026-11-01T13:00:00+01:00\".", s)
}

// goDurationType is timetypes.GoDurationType with goDurationValue as its values.
type goDurationType struct{ timetypes.GoDurationType }

func (goDurationType) String() string { return "provider.goDurationType" }

func (goDurationType) ValueType(context.Context) attr.Value { return goDurationValue{} }

func (goDurationType) Equal(o attr.Type) bool {
	_, ok := o.(goDurationType)
	return ok
}

func (goDurationType) ValueFromString(_ context.Context, in basetypes.StringValue) (basetypes.StringValuable, diag.Diagnostics) {
	return goDurationValue{timetypes.GoDuration{StringValue: in}}, nil
}

func (t goDurationType) ValueFromTerraform(ctx context.Context, in tftypes.Value) (attr.Value, error) {
	v, err := t.StringType.ValueFromTerraform(ctx, in)
	if err != nil {
		return nil, err
	}
	s, ok := v.(basetypes.StringValue)
	if !ok {
		return nil, fmt.Errorf("unexpected value type %T", v)
	}
	return goDurationValue{timetypes.GoDuration{StringValue: s}}, nil
}

// goDurationValue is a timetypes.GoDuration (ValueGoDuration and all) whose malformed value is
// reported by invalidDurationDetail.
type goDurationValue struct{ timetypes.GoDuration }

func (goDurationValue) Type(context.Context) attr.Type { return goDurationType{} }

func (v goDurationValue) Equal(o attr.Value) bool {
	other, ok := o.(goDurationValue)
	return ok && v.GoDuration.Equal(other.GoDuration)
}

func (v goDurationValue) StringSemanticEquals(ctx context.Context, n basetypes.StringValuable) (bool, diag.Diagnostics) {
	if other, ok := n.(goDurationValue); ok {
		n = other.GoDuration
	}
	return v.GoDuration.StringSemanticEquals(ctx, n)
}

func (v goDurationValue) ValidateAttribute(_ context.Context, req xattr.ValidateAttributeRequest, resp *xattr.ValidateAttributeResponse) {
	if v.IsNull() || v.IsUnknown() {
		return
	}
	if _, d := v.ValueGoDuration(); d.HasError() { // timetypes' parsing
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid duration", invalidDurationDetail(v.ValueString()))
	}
}

// rfc3339Type is timetypes.RFC3339Type with rfc3339Value as its values.
type rfc3339Type struct{ timetypes.RFC3339Type }

func (rfc3339Type) String() string { return "provider.rfc3339Type" }

func (rfc3339Type) ValueType(context.Context) attr.Value { return rfc3339Value{} }

func (rfc3339Type) Equal(o attr.Type) bool {
	_, ok := o.(rfc3339Type)
	return ok
}

func (rfc3339Type) ValueFromString(_ context.Context, in basetypes.StringValue) (basetypes.StringValuable, diag.Diagnostics) {
	return rfc3339Value{timetypes.RFC3339{StringValue: in}}, nil
}

func (t rfc3339Type) ValueFromTerraform(ctx context.Context, in tftypes.Value) (attr.Value, error) {
	v, err := t.StringType.ValueFromTerraform(ctx, in)
	if err != nil {
		return nil, err
	}
	s, ok := v.(basetypes.StringValue)
	if !ok {
		return nil, fmt.Errorf("unexpected value type %T", v)
	}
	return rfc3339Value{timetypes.RFC3339{StringValue: s}}, nil
}

// rfc3339Value is a timetypes.RFC3339 (ValueRFC3339Time and all) whose malformed value is
// reported by invalidTimestampDetail.
type rfc3339Value struct{ timetypes.RFC3339 }

func (rfc3339Value) Type(context.Context) attr.Type { return rfc3339Type{} }

func (v rfc3339Value) Equal(o attr.Value) bool {
	other, ok := o.(rfc3339Value)
	return ok && v.RFC3339.Equal(other.RFC3339)
}

func (v rfc3339Value) StringSemanticEquals(ctx context.Context, n basetypes.StringValuable) (bool, diag.Diagnostics) {
	if other, ok := n.(rfc3339Value); ok {
		n = other.RFC3339
	}
	return v.RFC3339.StringSemanticEquals(ctx, n)
}

func (v rfc3339Value) ValidateAttribute(_ context.Context, req xattr.ValidateAttributeRequest, resp *xattr.ValidateAttributeResponse) {
	if v.IsNull() || v.IsUnknown() {
		return
	}
	if _, d := v.ValueRFC3339Time(); d.HasError() { // timetypes' parsing
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid timestamp", invalidTimestampDetail(v.ValueString()))
	}
}
