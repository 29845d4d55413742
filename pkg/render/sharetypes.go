package render

import (
	"fmt"
	"os"

	"sigs.k8s.io/yaml"

	"github.com/manila-csi/manila-csi-driver-operator/pkg/manilatypes"
)

// shareTypeEntry is one share type of a --share-types file, YAML or JSON:
//
//   - name: gold            # required, as in Manila (case kept)
//     id: 0d4f2a7c-...      # optional; the class's share-type-id annotation
//     public: false         # optional, default true
//     extraSpecs:           # optional, values as Manila returns them
//     driver_handles_share_servers: "False"
//     storage_protocol: NFS
type shareTypeEntry struct {
	Name        string            `json:"name"`
	ID          string            `json:"id,omitempty"`
	Public      *bool             `json:"public,omitempty"`
	Default     bool              `json:"default,omitempty"`
	Extra       map[string]string `json:"extraSpecs,omitempty"`
	Description string            `json:"description,omitempty"`
}

// ReadShareTypes reads a --share-types file: a list of share types as above. Unknown fields, a
// missing name and a name listed twice are errors.
func ReadShareTypes(path string) ([]manilatypes.ShareType, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading --share-types: %w", err)
	}
	types, err := ParseShareTypes(data)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return types, nil
}

// ParseShareTypes parses the text of a --share-types file.
func ParseShareTypes(data []byte) ([]manilatypes.ShareType, error) {
	var entries []shareTypeEntry
	if err := yaml.UnmarshalStrict(data, &entries); err != nil {
		return nil, fmt.Errorf("not a list of share types (name, id, public, default, description, extraSpecs): %w", err)
	}
	seen := map[string]bool{}
	out := make([]manilatypes.ShareType, 0, len(entries))
	for i, e := range entries {
		switch {
		case e.Name == "":
			return nil, fmt.Errorf("[%d].name: required", i)
		case seen[e.Name]:
			return nil, fmt.Errorf("[%d].name: share type %q is listed twice", i, e.Name)
		}
		seen[e.Name] = true
		public := e.Public == nil || *e.Public
		out = append(out, manilatypes.ShareType{ID: e.ID, Name: e.Name, Description: e.Description,
			IsPublic: public, IsDefault: e.Default, ExtraSpecs: e.Extra})
	}
	return out, nil
}
