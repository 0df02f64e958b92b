package provider

import (
	"context"
	"math/big"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
	"unicode"

	"github.com/hashicorp/terraform-plugin-framework/diag"
	"github.com/hashicorp/terraform-plugin-framework/path"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/kafkaclient"
)

// Fuzz targets for what the provider block reads from the environment (tools/test/fuzz.sh runs
// each for a bounded time in CI).

// controlRune returns the first control character in s, or -1: an environment value must not
// reach a diagnostic raw, where it could forge lines.
func controlRune(s string) rune {
	for _, r := range s {
		if unicode.IsControl(r) || r == '\u2028' || r == '\u2029' {
			return r
		}
	}
	return -1
}

// FuzzBootstrapServersEnv: KAFKA_BOOTSTRAP_SERVERS is a comma-separated list; each element,
// trimmed, is kept in order when CheckBootstrapServer accepts it and is an error on
// bootstrap_servers otherwise (one per distinct element); a blank variable is one "Missing bootstrap servers" error.
func FuzzBootstrapServersEnv(f *testing.F) {
	for _, s := range []string{"broker-1:9092", "broker-1:9092,broker-2:9092", " a:1 , [::1]:2 ", "a:1,,b:2", ",", "   ",
		"PLAINTEXT://a:9092", "a:9092;b:9092", "a:0,b:65536", "a\t:1", "[::1:9092"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, env string) {
		if strings.ContainsRune(env, 0) {
			return // no environment variable holds NUL
		}
		t.Setenv(EnvBootstrapServers, env)
		var diags diag.Diagnostics
		got := bootstrapServers(context.Background(), nullConfig(), &diags)
		checkDiagnostics(t, diags, path.Root("bootstrap_servers"))
		if strings.TrimSpace(env) == "" {
			if got != nil || diags.ErrorsCount() != 1 || diags.Errors()[0].Summary() != "Missing bootstrap servers" {
				t.Fatalf("blank variable: got %q, %v", got, diags)
			}
			return
		}
		var want []string
		refused := map[string]bool{} // the framework merges equal diagnostics
		for _, s := range strings.Split(strings.TrimSpace(env), ",") {
			if s = strings.TrimSpace(s); kafkaclient.CheckBootstrapServer(s) == nil {
				want = append(want, s)
			} else {
				refused[s] = true
			}
		}
		if !slices.Equal(got, want) || diags.ErrorsCount() != len(refused) {
			t.Fatalf("%q: got %q with %d errors; want %q with %d", env, got, diags.ErrorsCount(), want, len(refused))
		}
	})
}

// FuzzTimeout: parseTimeout (the timeout attribute and KAFKA_TIMEOUT) accepts exactly the Go
// durations from 1s to 24h, and a refusal says what is true of the value as written: "not
// positive", "shorter than 1s" or "longer than 24h" only when its exact value is, "not a Go
// duration" only when no Go duration has that value.
func FuzzTimeout(f *testing.F) {
	for _, s := range []string{"30s", "1s", "24h", "1m30s", "1.5s", "10", "soon", "", "0s", "-5s", "1ns", "999ms", "25h",
		"3000000h", "9223372036854775808ns", "0.5ns", "-0.5ns", "+2s", "1.h", ".5h", "1h-1s", "2562047h47m16.854775808s"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := parseTimeout(s)
		want, perr := time.ParseDuration(s)
		if ok := perr == nil && want >= time.Second && want <= 24*time.Hour; ok != (err == nil) || (ok && d != want) {
			t.Fatalf("parseTimeout(%q) = %s, %v; time.ParseDuration says %s, %v", s, d, err, want, perr)
		}
		if err == nil {
			return
		}
		if r := controlRune(err.Error()); r >= 0 {
			t.Fatalf("error holds the control character %U: %q", r, err.Error())
		}
		exact, isDuration := exactDuration(s)
		notPositive := isDuration && exact.Sign() <= 0
		shorter := isDuration && exact.Sign() > 0 && exact.Cmp(big.NewRat(int64(time.Second), 1)) < 0
		longer := isDuration && exact.Cmp(big.NewRat(int64(24*time.Hour), 1)) > 0
		// A Go duration is a whole number of nanoseconds in an int64: "3000000h" is written like
		// one, yet none.
		maxDuration := big.NewRat(1<<63-1, 1)
		fits := isDuration && new(big.Rat).Abs(exact).Cmp(maxDuration) <= 0
		msg := err.Error()
		switch {
		case strings.Contains(msg, "is not positive") && !notPositive,
			strings.Contains(msg, "shorter than") && !shorter,
			strings.Contains(msg, "longer than") && !longer,
			strings.Contains(msg, "is not a Go duration") && fits:
			t.Fatalf("parseTimeout(%q): %q, but its exact value is %s ns", s, msg, exact.FloatString(3))
		}
		// The same value in KAFKA_TIMEOUT: the same verdict, on the timeout attribute.
		if strings.ContainsRune(s, 0) || strings.TrimSpace(s) != s || s == "" {
			return
		}
		t.Setenv(EnvTimeout, s)
		var diags diag.Diagnostics
		timeout(nullConfig(), &diags)
		checkDiagnostics(t, diags, path.Root("timeout"))
		if diags.ErrorsCount() != 1 || !strings.Contains(diags.Errors()[0].Detail(), "environment variable "+EnvTimeout) {
			t.Fatalf("KAFKA_TIMEOUT=%q: %v", s, diags)
		}
	})
}

var durationPart = regexp.MustCompile(`([0-9]*\.?[0-9]*)(ns|us|µs|μs|ms|s|m|h)`)

// exactDuration is the value of a Go duration string in nanoseconds, without overflow or
// rounding; false when s is not shaped like a duration (time.ParseDuration's grammar).
func exactDuration(s string) (*big.Rat, bool) {
	neg := strings.HasPrefix(s, "-")
	body := strings.TrimLeft(s, "+-")
	if len(s)-len(body) > 1 || body == "" {
		return nil, false
	}
	if body == "0" {
		return new(big.Rat), true
	}
	unit := map[string]int64{"ns": 1, "us": 1e3, "µs": 1e3, "μs": 1e3, "ms": 1e6, "s": 1e9, "m": 60e9, "h": 3600e9}
	sum := new(big.Rat)
	rest := body
	for rest != "" {
		m := durationPart.FindStringSubmatchIndex(rest)
		if m == nil || m[0] != 0 {
			return nil, false
		}
		num := rest[m[2]:m[3]]
		if num == "" || num == "." {
			return nil, false
		}
		if strings.Contains(num, ".") {
			num += "0" // "1." and ".5" are numbers in Go durations
		}
		r, ok := new(big.Rat).SetString("0" + num)
		if !ok {
			return nil, false
		}
		sum.Add(sum, r.Mul(r, big.NewRat(unit[rest[m[4]:m[5]]], 1)))
		rest = rest[m[1]:]
	}
	if neg {
		sum.Neg(sum)
	}
	return sum, true
}
