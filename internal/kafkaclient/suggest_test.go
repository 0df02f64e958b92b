package kafkaclient

import (
	"slices"
	"testing"
)

// Names equal but for case come first, then those a few edits away, closest first; a name is
// never its own suggestion, and far names are none.
func TestSuggest(t *testing.T) {
	for _, tc := range []struct {
		name       string
		candidates []string
		want       []string
	}{
		{"Legacy.audit", []string{"legacy.audit", "legacy.billing", "audit"}, []string{"legacy.audit"}},
		{"biling", []string{"billing", "audit", "billing-v2"}, []string{"billing"}},
		{"orders", []string{"Orders", "order", "orders", "orders.v2"}, []string{"Orders", "order"}},
		{"payments", []string{"invoices", "shipments"}, []string{}},
		{"a", []string{"b", "A", "ab", "c", "d"}, []string{"A", "ab", "b"}},
		{"orders", nil, []string{}},
		// Far apart after a long common prefix: 8 edits, not near.
		{"tfacc-test-d91f493e-zzzzzzzz", []string{"tfacc-test-d91f493e-billing"}, []string{}},
	} {
		if got := suggest(tc.name, tc.candidates); !slices.Equal(got, tc.want) {
			t.Errorf("suggest(%q, %q) = %q, want %q", tc.name, tc.candidates, got, tc.want)
		}
	}
}
