package kafkaclient

import "math"

// Lag is how many offsets a group's commit is behind the partition's latest offset: latest −
// committed. It is negative when the commit lies past the log end (a commit made before the log
// was truncated or recreated), as Kafka's kafka-consumer-groups.sh shows it.
func Lag(latest, committed int64) int64 { return latest - committed }

// AddLag adds one partition's lag to a group's total lag, which counts positive lags only: a
// commit past the log end on one partition must not hide a backlog on another. ok is false when
// the sum does not fit in an int64 (offsets near 2^63, which no real partition reaches).
func AddLag(total, lag int64) (sum int64, ok bool) {
	if lag <= 0 {
		return total, true
	}
	if lag > math.MaxInt64-total {
		return total, false
	}
	return total + lag, true
}
