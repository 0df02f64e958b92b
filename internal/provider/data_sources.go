package provider

import (
	"context"

	"github.com/hashicorp/terraform-plugin-framework/datasource"
)

// DataSources lists every data source the provider serves, one file each.
func (p *KafkaProvider) DataSources(context.Context) []func() datasource.DataSource {
	return []func() datasource.DataSource{
		NewPartitionOffsetsDataSource,
		NewTopicOffsetsDataSource,
		NewConsumerGroupOffsetsDataSource,
		NewTopicsOffsetsDataSource,
		NewConsumerGroupsDataSource,
	}
}
