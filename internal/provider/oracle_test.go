package provider

import (
	"context"
	"fmt"
	"testing"

	"github.com/hashicorp/terraform-plugin-testing/statecheck"
	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/acctest"
)

// oracleAgrees is a state check that asks franz-go's kadm, not our code, for the partition's
// offsets and fails when the broker's answer is not the one the test expects.
type oracleAgrees struct {
	t                *testing.T
	k                *acctest.Kafka
	topic            string
	partition        int32
	earliest, latest int64
}

var _ statecheck.StateCheck = oracleAgrees{}

func (o oracleAgrees) CheckState(_ context.Context, _ statecheck.CheckStateRequest, resp *statecheck.CheckStateResponse) {
	e, l := o.k.Offsets(o.topic, o.partition)
	if e != o.earliest || l != o.latest {
		resp.Error = fmt.Errorf("oracle (kadm) says %s/%d has earliest %d, latest %d; the test expects %d/%d",
			o.topic, o.partition, e, l, o.earliest, o.latest)
	}
}

// groupOracleAgrees asks kadm for the group's commits and each partition's high watermark.
type groupOracleAgrees struct {
	t       *testing.T
	k       *acctest.Kafka
	group   string
	entries []groupEntry
}

func (o groupOracleAgrees) CheckState(_ context.Context, _ statecheck.CheckStateRequest, resp *statecheck.CheckStateResponse) {
	committed := o.k.GroupCommitted(o.group)
	for _, e := range o.entries {
		got, ok := committed[e.topic][int32(e.partition)]
		if !ok || got < 0 {
			got = -1
		}
		_, latest := o.k.Offsets(e.topic, int32(e.partition))
		if got != e.committed || latest != e.latest {
			resp.Error = fmt.Errorf("oracle (kadm) says group %s on %s/%d has committed %d, latest %d; the test expects %d, %d",
				o.group, e.topic, e.partition, got, latest, e.committed, e.latest)
			return
		}
	}
}

// franzPartition is franz-go's Kafka-compatible partitioner's choice for key: an independent
// implementation of the Java client's murmur2 partitioning.
func franzPartition(key string, partitions int) int64 {
	return int64(kgo.StickyKeyPartitioner(nil).ForTopic("t").Partition(&kgo.Record{Key: []byte(key)}, partitions))
}
