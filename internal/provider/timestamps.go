package provider

// Times: the timestamp argument (RFC 3339) to Kafka's milliseconds since the epoch, and Kafka's
// record timestamps back to RFC 3339.

import (
	"context"
	"fmt"
	"time"

	"github.com/hashicorp/terraform-plugin-framework-timetypes/timetypes"
	"github.com/hashicorp/terraform-plugin-framework/datasource/schema"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/schema/validator"
)

// maxTimestamp is the latest time RFC 3339 can write (year 9999) in Kafka's milliseconds.
var maxTimestamp = time.Date(9999, 12, 31, 23, 59, 59, 999_000_000, time.UTC)

func timestampAttribute() schema.StringAttribute {
	return schema.StringAttribute{
		Optional:   true,
		CustomType: rfc3339Type{}, // time_types.go
		MarkdownDescription: "An RFC 3339 time, such as `\"2026-11-01T12:00:00Z\"`: when set, " +
			"`timestamp_offset` is read with ListOffsets by time, the first offset whose record " +
			"timestamp is at or after it. Kafka stores milliseconds since the Unix epoch, so " +
			"times before 1970-01-01T00:00:00Z are refused (negative timestamps are ListOffsets' " +
			"special values). A time finer than a millisecond is rounded up to the next one, so " +
			"that the answer stays at or after it.",
		Validators: []validator.String{timestampValidator{}},
	}
}

// timestampMs converts a known timestamp attribute to Kafka's milliseconds; nil when unset.
func timestampMs(v timetypes.RFC3339, attr path.Path, diags *diag.Diagnostics) *int64 {
	if v.IsNull() || v.IsUnknown() {
		return nil
	}
	t, d := v.ValueRFC3339Time()
	diags.Append(d...)
	if d.HasError() {
		return nil
	}
	if err := checkTimestamp(t); err != nil {
		diags.AddAttributeError(attr, "Invalid timestamp", err.Error())
		return nil
	}
	ms := t.UnixMilli()
	if t.Nanosecond()%int(time.Millisecond) != 0 {
		ms++ // round up: the answer must stay at or after the time asked for
	}
	return &ms
}

func checkTimestamp(t time.Time) error {
	if t.Before(time.Unix(0, 0)) {
		return fmt.Errorf("%s is before the Unix epoch (1970-01-01T00:00:00Z): Kafka timestamps are milliseconds "+
			"since the epoch, and negative ones are ListOffsets' special values", t.Format(time.RFC3339Nano))
	}
	if t.After(maxTimestamp) {
		return fmt.Errorf("%s is after %s", t.Format(time.RFC3339Nano), maxTimestamp.Format(time.RFC3339Nano))
	}
	return nil
}

// timestampValidator refuses, while planning, times that Kafka cannot look up.
type timestampValidator struct{}

func (timestampValidator) Description(context.Context) string {
	return "must be an RFC 3339 time at or after 1970-01-01T00:00:00Z"
}

func (v timestampValidator) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (timestampValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	t, err := time.Parse(time.RFC3339, req.ConfigValue.ValueString())
	if err != nil {
		return // rfc3339Value reports the parse error itself (time_types.go)
	}
	if err := checkTimestamp(t); err != nil {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid timestamp", err.Error()+".")
	}
}

// kafkaTimeLayout is RFC 3339 in UTC with Kafka's resolution, milliseconds, always three digits.
const kafkaTimeLayout = "2006-01-02T15:04:05.000Z07:00"

// optionalTime formats Kafka milliseconds as RFC 3339 in UTC; null for nil.
func optionalTime(ms *int64) timetypes.RFC3339 {
	if ms == nil {
		return timetypes.NewRFC3339Null()
	}
	return timetypes.NewRFC3339ValueMust(time.UnixMilli(*ms).UTC().Format(kafkaTimeLayout))
}
