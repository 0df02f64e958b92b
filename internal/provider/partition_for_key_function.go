package provider

import (
	"context"
	"fmt"

	"github.com/hashicorp/terraform-plugin-framework-validators/int64validator"
	"github.com/hashicorp/terraform-plugin-framework/function"

	"github.com/kafka-offsets/terraform-provider-kafka/internal/kafkaclient"
)

var _ function.Function = PartitionForKeyFunction{}

// PartitionForKeyFunction is provider::kafka::partition_for_key: the partition Kafka's default
// partitioner picks for a key. Pure: no network, no provider configuration.
type PartitionForKeyFunction struct{}

// NewPartitionForKeyFunction is registered in KafkaProvider.Functions.
func NewPartitionForKeyFunction() function.Function { return PartitionForKeyFunction{} }

func (PartitionForKeyFunction) Metadata(_ context.Context, _ function.MetadataRequest, resp *function.MetadataResponse) {
	resp.Name = "partition_for_key"
}

func (PartitionForKeyFunction) Definition(_ context.Context, _ function.DefinitionRequest, resp *function.DefinitionResponse) {
	resp.Definition = function.Definition{
		Summary: "The partition that Kafka's default partitioner picks for a record key",
		MarkdownDescription: "Returns the partition, from 0 to `partition_count - 1`, that Kafka's default " +
			"partitioner picks for a record with this (non-null) key: murmur2 of the key's bytes, made positive, " +
			"modulo the partition count, as the Java client does (`BuiltInPartitioner.partitionForKey`, " +
			"`Utils.toPositive(Utils.murmur2(keyBytes)) % numPartitions`) and librdkafka's `murmur2_random`. " +
			"The key is taken as its UTF-8 bytes, as Kafka's `StringSerializer` writes it; an empty string is a " +
			"key like any other. Pure: it reads nothing from the cluster, so pass the topic's current " +
			"`partition_count` (from `kafka_topic_offsets`): adding partitions moves keys.\n\n" +
			"It does not apply to producers that set their own `partitioner.class`, records sent to an explicit " +
			"partition, or clients with another default (librdkafka's default is `consistent_random`, CRC32). " +
			"Needs Terraform 1.8 or later.",
		Parameters: []function.Parameter{
			function.StringParameter{
				Name:                "key",
				MarkdownDescription: "The record key, as a string (its UTF-8 bytes are hashed).",
			},
			function.Int64Parameter{
				Name: "partition_count",
				MarkdownDescription: fmt.Sprintf("How many partitions the topic has: from 1 to %d.",
					kafkaclient.MaxPartitionCount),
				Validators: []function.Int64ParameterValidator{int64validator.Between(1, kafkaclient.MaxPartitionCount)},
			},
		},
		Return: function.Int64Return{},
	}
}

func (PartitionForKeyFunction) Run(ctx context.Context, req function.RunRequest, resp *function.RunResponse) {
	var (
		key   string
		count int64
	)
	resp.Error = function.ConcatFuncErrors(req.Arguments.Get(ctx, &key, &count))
	if resp.Error != nil {
		return
	}
	if count < 1 || count > kafkaclient.MaxPartitionCount { // the validator has said so already
		resp.Error = function.NewArgumentFuncError(1, fmt.Sprintf("partition_count must be from 1 to %d, got %d",
			kafkaclient.MaxPartitionCount, count))
		return
	}
	partition := kafkaclient.PartitionForKey([]byte(key), int(count))
	resp.Error = function.ConcatFuncErrors(resp.Result.Set(ctx, int64(partition)))
}
