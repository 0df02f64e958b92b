package provider

import (
	"context"
	"regexp"
	"strings"
	"testing"

	"github.com/hashicorp/terraform-plugin-framework/attr/xattr"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
	"github.com/hashicorp/terraform-plugin-framework/types/basetypes"
	"github.com/hashicorp/terraform-plugin-go/tftypes"
	"github.com/hashicorp/terraform-plugin-testing/helper/resource"
)

// The details of the errors for timeout = "10" and timestamp = "2026-11-01 12:00", as the user
// reads them.
const (
	durationDetail10 = `"10" is not a Go duration: want a number with a unit (ns, us, ms, s, m, h), ` +
		`such as "30s", "10m" or "1h30m".`
	timestampDetailSpace = `"2026-11-01 12:00" is not an RFC 3339 time: want a date, "T", a time and a time zone, ` +
		`such as "2026-11-01T12:00:00Z" or "2026-11-01T13:00:00+01:00".`
)

// A malformed duration or time is one error on the attribute: what was given and the form wanted,
// nothing more (timetypes' own error printed a literal `\n\nGiven Value:` and an `Error:` line).
func TestMalformedTimeArgumentsAreOneClearError(t *testing.T) {
	ctx := context.Background()
	at := path.Root("x")
	for _, tc := range []struct {
		name            string
		typ             basetypes.StringTypable
		value           string
		summary, detail string // "" for a valid value
	}{
		{name: "duration without a unit", typ: goDurationType{}, value: "10", summary: "Invalid duration", detail: durationDetail10},
		{name: "duration with an unknown unit", typ: goDurationType{}, value: "1x", summary: "Invalid duration",
			detail: `"1x" is not a Go duration: want a number with a unit (ns, us, ms, s, m, h), such as "30s", "10m" or "1h30m".`},
		{name: "duration", typ: goDurationType{}, value: "1m30s"},
		{name: "time with a space", typ: rfc3339Type{}, value: "2026-11-01 12:00", summary: "Invalid timestamp", detail: timestampDetailSpace},
		{name: "date alone", typ: rfc3339Type{}, value: "2026-11-01", summary: "Invalid timestamp",
			detail: `"2026-11-01" is not an RFC 3339 time: want a date, "T", a time and a time zone, such as "2026-11-01T12:00:00Z" or "2026-11-01T13:00:00+01:00".`},
		{name: "time", typ: rfc3339Type{}, value: "2026-11-01T13:00:00.5+01:00"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v, err := tc.typ.ValueFromTerraform(ctx, tftypes.NewValue(tftypes.String, tc.value))
			if err != nil {
				t.Fatal(err)
			}
			va, ok := v.(xattr.ValidateableAttribute)
			if !ok {
				t.Fatalf("%T does not validate itself", v)
			}
			var resp xattr.ValidateAttributeResponse
			va.ValidateAttribute(ctx, xattr.ValidateAttributeRequest{Path: at}, &resp)
			var want diag.Diagnostics
			if tc.summary != "" {
				want.AddAttributeError(at, tc.summary, tc.detail)
			}
			if !resp.Diagnostics.Equal(want) {
				t.Errorf("got %v, want %v", resp.Diagnostics, want)
			}
		})
	}
	for _, v := range []xattr.ValidateableAttribute{goDurationValue{}, rfc3339Value{}} { // null: nothing to check
		var resp xattr.ValidateAttributeResponse
		v.ValidateAttribute(ctx, xattr.ValidateAttributeRequest{Path: at}, &resp)
		if resp.Diagnostics.HasError() {
			t.Errorf("%T null: %v", v, resp.Diagnostics)
		}
	}
}

// The same errors as Terraform shows them, while planning, without a broker: each the last
// thing in the output (no "Error:" line after it).
func TestMalformedTimeArgumentsWhilePlanning(t *testing.T) {
	for _, tc := range []struct {
		name, config, summary, detail string
	}{
		{name: "provider timeout", summary: "Invalid duration", detail: durationDetail10, config: `provider "kafka" {
  bootstrap_servers = ["127.0.0.1:1"]
  timeout           = "10"
}
data "kafka_partition_offsets" "test" {
  topic     = "t"
  partition = 0
}`},
		{name: "kafka_partition_offsets timestamp", summary: "Invalid timestamp", detail: timestampDetailSpace, config: `provider "kafka" {
  bootstrap_servers = ["127.0.0.1:1"]
}
data "kafka_partition_offsets" "test" {
  topic     = "t"
  partition = 0
  timestamp = "2026-11-01 12:00"
}`},
		{name: "kafka_topic_offsets timestamp", summary: "Invalid timestamp", detail: timestampDetailSpace, config: `provider "kafka" {
  bootstrap_servers = ["127.0.0.1:1"]
}
data "kafka_topic_offsets" "test" {
  topic     = "t"
  timestamp = "2026-11-01 12:00"
}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := `(?s)Error: ` + regexp.QuoteMeta(tc.summary) + `\s.*` +
				strings.Join(strings.Fields(regexp.QuoteMeta(tc.detail)), `\s+`) + `\s*$`
			resource.UnitTest(t, resource.TestCase{
				ProtoV6ProviderFactories: protoV6ProviderFactories,
				Steps:                    []resource.TestStep{{Config: tc.config, PlanOnly: true, ExpectError: regexp.MustCompile(want)}},
			})
		})
	}
}
