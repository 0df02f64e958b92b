package provider

// Plan-time checks that no framework validator makes: a bootstrap address, a duration's bounds.

import (
	"context"
	"fmt"
	"regexp"
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

// durationValidator checks a Go duration string while planning.
type durationValidator struct{}

func (durationValidator) Description(context.Context) string {
	return `must be a positive Go duration such as "10s" or "1m30s"`
}

func (v durationValidator) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (durationValidator) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	if _, err := parseTimeout(req.ConfigValue.ValueString()); err != nil {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid timeout", err.Error()+".")
	}
}

// durationBetween checks a Go duration attribute's bounds while planning (timetypes.GoDuration
// reports a malformed one itself).
type durationBetween struct{ min, max time.Duration }

func (v durationBetween) Description(context.Context) string {
	return fmt.Sprintf("must be a Go duration from %s to %s", v.min, v.max)
}

func (v durationBetween) MarkdownDescription(ctx context.Context) string { return v.Description(ctx) }

func (v durationBetween) ValidateString(_ context.Context, req validator.StringRequest, resp *validator.StringResponse) {
	if req.ConfigValue.IsNull() || req.ConfigValue.IsUnknown() {
		return
	}
	d, err := time.ParseDuration(req.ConfigValue.ValueString())
	if err != nil {
		return
	}
	if d < v.min || d > v.max {
		resp.Diagnostics.AddAttributeError(req.Path, "Invalid duration",
			fmt.Sprintf("%q is outside the allowed range: %s.", req.ConfigValue.ValueString(), v.Description(context.Background())))
	}
}

// durationShape is a Go duration's shape: numbers, each with a unit.
var durationShape = regexp.MustCompile(`^\+?([0-9]+(\.[0-9]*)?|\.[0-9]+)(ns|us|µs|μs|ms|s|m|h)(([0-9]+(\.[0-9]*)?|\.[0-9]+)(ns|us|µs|μs|ms|s|m|h))*$`)

// Bounds of timeout: below a second no connection handshake fits, and a read that may take a day
// is a hang by another name.
const (
	minTimeout = time.Second
	maxTimeout = 24 * time.Hour
)

func parseTimeout(s string) (time.Duration, error) {
	d, err := time.ParseDuration(s)
	switch {
	case err != nil && durationShape.MatchString(s): // well formed, yet refused: it overflows
		return 0, fmt.Errorf("%q is longer than %s", s, maxTimeout)
	case err != nil:
		return 0, fmt.Errorf("%q is not a Go duration: want a number with a unit, such as \"10s\" or \"1m30s\"", s)
	case d < 0, strings.HasPrefix(s, "-"), d == 0 && !strings.ContainsAny(s, "123456789"):
		// time.ParseDuration truncates to whole nanoseconds: "0.5ns" is 0, yet positive.
		return 0, fmt.Errorf("%q is not positive: want a duration from %s to %s, such as \"10s\"", s, minTimeout, maxTimeout)
	case d < minTimeout:
		return 0, fmt.Errorf("%q is shorter than %s, too short to connect to a broker", s, minTimeout)
	case d > maxTimeout:
		return 0, fmt.Errorf("%q is longer than %s", s, maxTimeout)
	}
	return d, nil
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
