package kafkaharness

import "testing"

func TestAtLeast(t *testing.T) {
	for _, c := range []struct {
		version      string
		major, minor int
		want         bool
	}{
		{"3.3.2", 3, 5, false},
		{"3.4.1", 3, 5, false},
		{"3.5.0", 3, 5, true},
		{"3.10.0", 3, 5, true},
		{"4.0.1", 3, 5, true},
		{"2.8.2", 3, 0, false},
		{"trunk", 3, 5, true},
	} {
		if got := atLeast(c.version, c.major, c.minor); got != c.want {
			t.Errorf("atLeast(%q, %d, %d) = %v, want %v", c.version, c.major, c.minor, got, c.want)
		}
	}
}
