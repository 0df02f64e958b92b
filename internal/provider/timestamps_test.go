package provider

import (
	"testing"

	"github.com/hashicorp/terraform-plugin-framework-timetypes/timetypes"
	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"
)

func TestTimestampMsRoundsUp(t *testing.T) {
	for in, want := range map[string]int64{
		"1970-01-01T00:00:00Z":         0,
		"2026-11-01T12:00:05Z":         1793534405000,
		"2026-11-01T12:00:05.0005Z":    1793534405001, // finer than a millisecond: the next one
		"2026-11-01T13:00:05.25+01:00": 1793534405250,
	} {
		t.Run(in, func(t *testing.T) {
			var diags diag.Diagnostics
			got := timestampMs(timetypes.NewRFC3339ValueMust(in), path.Root("timestamp"), &diags)
			if diags.HasError() || got == nil || *got != want {
				t.Errorf("%s: got %v, %v; want %d", in, got, diags, want)
			}
		})
	}
}
