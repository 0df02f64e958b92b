package kafkaclient

import (
	"net"
	"strconv"

	"github.com/segmentio/kafka-go"
)

// kafka-go negotiates each request's version with the broker, but does not say which one it
// picked. Requests whose shape depends on the version (OffsetFetch carries many groups only from
// v8) read the broker's highest version from its ApiVersions answer, which frames.go sees on
// every new connection.

// noteApiVersions records the highest version of every API that address serves.
func (d *dialLog) noteApiVersions(address string, maxVersion map[int16]int16) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.apiVersions == nil {
		d.apiVersions = map[string]map[int16]int16{}
	}
	d.apiVersions[address] = maxVersion
}

// apiMaxVersion is the highest version of the API key that broker serves; ok is false before a
// connection to it has answered ApiVersions.
func (d *dialLog) apiMaxVersion(broker kafka.Broker, key int16) (v int16, ok bool) {
	address := net.JoinHostPort(broker.Host, strconv.Itoa(broker.Port))
	d.mu.Lock()
	defer d.mu.Unlock()
	v, ok = d.apiVersions[address][key]
	return v, ok
}
