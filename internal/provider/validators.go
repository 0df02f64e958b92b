package provider

// Plan-time checks that no framework validator makes: a bootstrap address (bootstrap_servers), a
// duration's bounds (the wait block). Others live beside the attribute they check: timeoutBounds
// in provider_timeout.go, timestampValidator in timestamps.go, wholeMatchValidator in
// regex_validator.go, pemValidator in provider_auth_pem.go, topicNameValidators in
// shared_attributes.go. Prefer terraform-plugin-framework-validators where one fits.

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/hashicorp/terraform-plugin-framework/schema/validator"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/kafkaclient"
)

// bootstrapServerValidator checks one "host:port" element while planning.
type bootstrapServerValidator struct{}

func (bootstrapServerValidator) Description(context.Context) string {
	return "must be host:port, one address per element, port 1-65535, IPv6 host in brackets"
}

func (v bootstrapServerValidator) MarkdownDescription(ctx context.Context) string {
	return v.Description(ctx)
}

func (bootstrapServerValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if err := kafkaclient.CheckBootstrapServer(req.ConfigValue.ValueString()); err != nil {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid bootstrap server", err.Error()+".")
	}
}

// durationCheck checks a timetypes.GoDuration attribute while planning (timetypes reports a
// malformed one itself): check says what is wrong with d, parsed from s.
type durationCheck struct {
	summary     string
	description string
	check       func(s string, d time.Duration) error
}

func (v durationCheck) Description(context.Context) string { return v.description }

func (v durationCheck) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (v durationCheck) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	s := req.ConfigValue.ValueString()
	d, err := time.ParseDuration(s)
	if err != nil {
		return
	}
	if err := v.check(s, d); err != nil {
		resp.Diagnostics.AddAttributeError(req.Path, v.summary, err.Error()+".")
	}
}

// durationBetween accepts a duration from lo to hi.
func durationBetween(lo, hi time.Duration) durationCheck {
	desc := fmt.Sprintf("must be a Go duration from %s to %s", lo, hi)
	return durationCheck{summary: "Invalid duration", description: desc, check: func(s string, d time.Duration) error {
		if d < lo || d > hi {
			return fmt.Errorf("%q is outside the allowed range: %s", s, desc)
		}
		return nil
	}}
}

// shortDuration writes d as a Go duration without zero trailing units: "24h", not "24h0m0s".
func shortDuration(d time.Duration) string {
	s := d.String()
	if strings.HasSuffix(s, "m0s") {
		s = strings.TrimSuffix(s, "0s")
	}
	if strings.HasSuffix(s, "h0m") {
		s = strings.TrimSuffix(s, "0m")
	}
	return s
}
