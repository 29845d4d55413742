package cephxrefusal

import (
	"fmt"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/types"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/openstack"
	"github.com/manila-csi/manila-csi-driver-operator/pkg/operatorconfig"
)

// The metadata csi-provisioner (--extra-create-metadata) hands manila-csi-plugin, which puts it on
// the share it creates for a claim.
const (
	MetadataClaimName      = "csi.storage.k8s.io/pvc/name"
	MetadataClaimNamespace = "csi.storage.k8s.io/pvc/namespace"
	MetadataVolumeName     = "csi.storage.k8s.io/pv/name"
)

// Class parameters the diagnosis reads (classplan sets them on the operator's CephFS classes).
const (
	ParamShareType = "type"
	ParamClientID  = "cephfs-clientID"
)

// Manila's values the diagnosis reads.
const (
	AccessTypeCephx = "cephx"
	RuleStateError  = "error"
)

// Claim is the claim the diagnosis is about.
type Claim struct {
	Namespace, Name string
	UID             types.UID
}

// ShareMetadata is the metadata filter that finds the claim's shares in Manila.
func (c Claim) ShareMetadata() map[string]string {
	return map[string]string{MetadataClaimName: c.Name, MetadataClaimNamespace: c.Namespace}
}

// SharesOf keeps of shares (listed by ShareMetadata) those that are the claim's: the metadata names
// the claim, and the volume the share was made for, when the metadata names one, is this claim's
// (csi-provisioner names it <prefix>-<claim UID>): a claim deleted and made again under the same name
// is another claim, whose shares may still be there. Sorted by ID.
func SharesOf(claim Claim, shares []openstack.Share) []openstack.Share {
	var out []openstack.Share
	for _, s := range shares {
		md := s.Metadata
		if md[MetadataClaimName] != claim.Name || md[MetadataClaimNamespace] != claim.Namespace {
			continue
		}
		if pv, ok := md[MetadataVolumeName]; ok && !strings.HasSuffix(pv, "-"+string(claim.UID)) {
			continue
		}
		out = append(out, s)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].ID < out[j].ID })
	return out
}

// ShareRules is one of the claim's shares with its access rules.
type ShareRules struct {
	Share openstack.Share
	Rules []openstack.AccessRule
}

// Finding is what Diagnose found: the share and the refused rule, and the message for the claim.
type Finding struct {
	ShareID, RuleID, AccessTo string
	Message                   string
}

// Diagnose returns the finding of the first cephx rule in state error on one of the claim's shares
// (by share ID, then rule ID), or the zero Finding when there is none. params are the claim's
// StorageClass parameters. The message names the ID, the share and the setting to change; it never
// carries a key (a rule's key is not even read: openstack.AccessRule has no field for it).
func Diagnose(claim Claim, params map[string]string, shares []ShareRules) Finding {
	sorted := make([]ShareRules, 0, len(shares))
	for _, s := range shares {
		if len(SharesOf(claim, []openstack.Share{s.Share})) == 1 {
			sorted = append(sorted, s)
		}
	}
	sort.Slice(sorted, func(i, j int) bool { return sorted[i].Share.ID < sorted[j].Share.ID })
	for _, s := range sorted {
		rules := append([]openstack.AccessRule(nil), s.Rules...)
		sort.Slice(rules, func(i, j int) bool { return rules[i].ID < rules[j].ID })
		for _, r := range rules {
			if !strings.EqualFold(r.AccessType, AccessTypeCephx) || !strings.EqualFold(r.State, RuleStateError) {
				continue
			}
			return Finding{ShareID: s.Share.ID, RuleID: r.ID, AccessTo: r.AccessTo, Message: message(r.AccessTo, s.Share.ID, params)}
		}
	}
	return Finding{}
}

func message(id, shareID string, params map[string]string) string {
	shareType := params[ParamShareType]
	if shareType == "" {
		shareType = "<type>"
	}
	setting := "storageClasses.shareTypes." + shareType + "." + ParamClientID
	head := fmt.Sprintf("Manila put the cephx access rule for ID %q on share %s in error: ", id, shareID)
	if params[ParamClientID] == "" {
		// The driver's default ID (the volume's name) is the volume's own: the backend refused cephx
		// access itself, not an ID that another holds.
		return head + fmt.Sprintf("its CephFS backend refused cephx access for the volume's own ID (the class sets no %s), "+
			"so no node can mount the volume. Check the share type's backend in Manila (cephx access, its Ceph auth), "+
			"or set %s in ConfigMap %s to an ID of its own, then recreate the claim.", ParamClientID, setting, operatorconfig.ConfigMapName)
	}
	return head + fmt.Sprintf("its CephFS backend refused the ID (Ceph refuses an ID it already holds that Manila did not create; "+
		"Manila refuses its own ID). Set %s in ConfigMap %s to an ID of its own, then recreate the claim.", setting, operatorconfig.ConfigMapName)
}
