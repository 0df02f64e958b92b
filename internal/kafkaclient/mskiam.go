package kafkaclient

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"strings"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials/stscreds"
	"github.com/aws/aws-sdk-go-v2/service/sts"
	"github.com/segmentio/kafka-go/sasl"
	"github.com/segmentio/kafka-go/sasl/aws_msk_iam_v2"
)

// mskIAM is AWS_MSK_IAM through kafka-go's aws_msk_iam_v2 (a SigV4-signed kafka-cluster:Connect
// request as the initial response), with credentials from the AWS SDK's default chain.
type mskIAM struct {
	*aws_msk_iam_v2.Mechanism
	identity string
}

// newMSKIAM loads the AWS configuration (environment, shared config and credentials files,
// profile) without contacting AWS: credentials are resolved when a connection authenticates.
func newMSKIAM(ctx context.Context, c SASLConfig) (*mskIAM, error) {
	var opts []func(*config.LoadOptions) error
	if c.Region != "" {
		opts = append(opts, config.WithRegion(c.Region))
	}
	if c.Profile != "" {
		opts = append(opts, config.WithSharedConfigProfile(c.Profile))
	}
	awsCfg, err := config.LoadDefaultConfig(ctx, opts...)
	if err != nil {
		return nil, &SASLConfigError{Field: "profile", Reason: "loading the AWS configuration failed: " + err.Error()}
	}
	if awsCfg.Region == "" {
		return nil, &SASLConfigError{Field: "region", Reason: "mechanism aws-msk-iam needs the cluster's AWS region: " +
			"set region, or AWS_REGION, or a region in the AWS profile"}
	}
	who := []string{"AWS credentials from the default chain"}
	if c.Profile != "" {
		who = append(who, fmt.Sprintf("profile %q", c.Profile))
	}
	if c.RoleARN != "" {
		awsCfg.Credentials = aws.NewCredentialsCache(stscreds.NewAssumeRoleProvider(sts.NewFromConfig(awsCfg), c.RoleARN,
			func(o *stscreds.AssumeRoleOptions) { o.RoleSessionName = "terraform-provider-kafka" }))
		who = append(who, fmt.Sprintf("assuming role %s", c.RoleARN))
	}
	who = append(who, "region "+awsCfg.Region)
	return &mskIAM{Mechanism: aws_msk_iam_v2.NewMechanism(awsCfg), identity: strings.Join(who, ", ")}, nil
}

func (m *mskIAM) Identity() string { return m.identity }

// Start signs the request; a credential chain that yields nothing becomes a *SASLError.
func (m *mskIAM) Start(ctx context.Context) (sasl.StateMachine, []byte, error) {
	sm, ir, err := m.Mechanism.Start(ctx)
	if err != nil {
		e := &SASLError{Mechanism: m.Name(), Identity: m.identity, Problem: SASLCredentialsUnavailable, Err: err}
		if md := sasl.MetadataFromContext(ctx); md != nil {
			e.Address = net.JoinHostPort(md.Host, strconv.Itoa(md.Port))
		}
		return nil, nil, e
	}
	return sm, ir, nil
}
