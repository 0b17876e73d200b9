package mcp

import (
	"slices"
	"testing"

	"github.com/gomcp/sdk/internal/specschema"
)

var (
	all      = []string{Version20241105, Version20250326, Version20250618, Version20251125, Version20260728}
	legacy   = all[:4]
	from0326 = all[1:]
	from0618 = all[2:]
	from1125 = all[3:]
	only0326 = []string{Version20250326}
	only1125 = []string{Version20251125}
	only2026 = []string{Version20260728}
)

func TestVersionConstants(t *testing.T) {
	var tableVersions []string
	for _, f := range versionTable {
		tableVersions = append(tableVersions, f.version)
	}
	if !slices.Equal(tableVersions, supportedVersions) {
		t.Fatalf("version table %v, supportedVersions %v", tableVersions, supportedVersions)
	}
	if !slices.IsSortedFunc(supportedVersions, func(a, b string) int { return -cmpString(a, b) }) {
		t.Errorf("supportedVersions not newest first: %v", supportedVersions)
	}
	if LatestVersion != supportedVersions[0] {
		t.Errorf("LatestVersion = %s, want %s", LatestVersion, supportedVersions[0])
	}
	for _, v := range supportedVersions {
		if !features(v).stateless {
			if LatestStatefulVersion != v {
				t.Errorf("LatestStatefulVersion = %s, want %s", LatestStatefulVersion, v)
			}
			break
		}
	}
}

func cmpString(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// TestFeatureRanges pins, for every flag of the version table, the exact
// revisions that have it, as FEATURES.md describes them.
func TestFeatureRanges(t *testing.T) {
	tests := []struct {
		name string
		get  func(versionFeatures) bool
		want []string
	}{
		{"stateless", func(f versionFeatures) bool { return f.stateless }, only2026},
		{"batches", func(f versionFeatures) bool { return f.batches }, only0326},
		{"ping", func(f versionFeatures) bool { return f.ping }, legacy},
		{"serverRequests", func(f versionFeatures) bool { return f.serverRequests }, legacy},
		{"errorIDOptional", func(f versionFeatures) bool { return f.errorIDOptional }, from1125},
		{"cancelRequestIDOptional", func(f versionFeatures) bool { return f.cancelRequestIDOptional }, only1125},
		{"progressMessage", func(f versionFeatures) bool { return f.progressMessage }, from0326},
		{"modernErrors", func(f versionFeatures) bool { return f.modernErrors }, only2026},
		{"completionsCapability", func(f versionFeatures) bool { return f.completionsCapability }, from0326},
		{"completionContext", func(f versionFeatures) bool { return f.completionContext }, from0618},
		{"loggingSetLevel", func(f versionFeatures) bool { return f.loggingSetLevel }, legacy},
		{"perRequestLogLevel", func(f versionFeatures) bool { return f.perRequestLogLevel }, only2026},
		{"resourceSubscribe", func(f versionFeatures) bool { return f.resourceSubscribe }, legacy},
		{"listChangedNotifications", func(f versionFeatures) bool { return f.listChangedNotifications }, legacy},
		{"subscriptionsListen", func(f versionFeatures) bool { return f.subscriptionsListen }, only2026},
		{"serverDiscover", func(f versionFeatures) bool { return f.serverDiscover }, only2026},
		{"toolAnnotations", func(f versionFeatures) bool { return f.toolAnnotations }, from0326},
		{"structuredOutput", func(f versionFeatures) bool { return f.structuredOutput }, from0618},
		{"structuredContentAnyJSON", func(f versionFeatures) bool { return f.structuredContentAnyJSON }, only2026},
		{"toolNameRules", func(f versionFeatures) bool { return f.toolNameRules }, from1125},
		{"inputValidationToolErrors", func(f versionFeatures) bool { return f.inputValidationToolErrors }, from1125},
		{"jsonSchema202012Default", func(f versionFeatures) bool { return f.jsonSchema202012Default }, from1125},
		{"resultType", func(f versionFeatures) bool { return f.resultType }, only2026},
		{"cacheHints", func(f versionFeatures) bool { return f.cacheHints }, only2026},
		{"inputRequired", func(f versionFeatures) bool { return f.inputRequired }, only2026},
		{"audioContent", func(f versionFeatures) bool { return f.audioContent }, from0326},
		{"resourceLinks", func(f versionFeatures) bool { return f.resourceLinks }, from0618},
		{"titles", func(f versionFeatures) bool { return f.titles }, from0618},
		{"annotationsLastModified", func(f versionFeatures) bool { return f.annotationsLastModified }, from0618},
		{"contentMeta", func(f versionFeatures) bool { return f.contentMeta }, from0618},
		{"icons", func(f versionFeatures) bool { return f.icons }, from1125},
		{"implementationDescription", func(f versionFeatures) bool { return f.implementationDescription }, from1125},
		{"rootsListChanged", func(f versionFeatures) bool { return f.rootsListChanged }, legacy},
		{"elicitation", func(f versionFeatures) bool { return f.elicitation }, from0618},
		{"elicitationURLMode", func(f versionFeatures) bool { return f.elicitationURLMode }, from1125},
		{"elicitationComplete", func(f versionFeatures) bool { return f.elicitationComplete }, only1125},
		{"urlElicitationRequiredError", func(f versionFeatures) bool { return f.urlElicitationRequiredError }, only1125},
		{"enumSchemas", func(f versionFeatures) bool { return f.enumSchemas }, from1125},
		{"elicitationDefaults", func(f versionFeatures) bool { return f.elicitationDefaults }, from1125},
		{"samplingTools", func(f versionFeatures) bool { return f.samplingTools }, from1125},
		{"samplingContentArrays", func(f versionFeatures) bool { return f.samplingContentArrays }, from1125},
		{"tasks", func(f versionFeatures) bool { return f.tasks }, only1125},
		{"httpSSE", func(f versionFeatures) bool { return f.httpSSE }, []string{Version20241105}},
		{"streamableHTTP", func(f versionFeatures) bool { return f.streamableHTTP }, from0326},
		{"sessions", func(f versionFeatures) bool { return f.sessions }, all[1:4]},
		{"httpGetStream", func(f versionFeatures) bool { return f.httpGetStream }, all[1:4]},
		{"sseResumable", func(f versionFeatures) bool { return f.sseResumable }, all[1:4]},
		{"ssePolling", func(f versionFeatures) bool { return f.ssePolling }, only1125},
		{"protocolVersionHeader", func(f versionFeatures) bool { return f.protocolVersionHeader }, from0618},
		{"disconnectCancels", func(f versionFeatures) bool { return f.disconnectCancels }, only2026},
		{"standardHeaders", func(f versionFeatures) bool { return f.standardHeaders }, only2026},
		{"originForbidden403", func(f versionFeatures) bool { return f.originForbidden403 }, from1125},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got []string
			for _, v := range all {
				if tt.get(features(v)) {
					got = append(got, v)
				}
			}
			if !slices.Equal(got, tt.want) {
				t.Errorf("revisions with %s = %v, want %v", tt.name, got, tt.want)
			}
			if tt.get(features("2099-01-01")) || tt.get(features("")) {
				t.Errorf("an unknown version has %s", tt.name)
			}
		})
	}
}

func TestResourceNotFoundCode(t *testing.T) {
	for _, v := range all {
		want := int64(CodeResourceNotFound)
		if v == Version20260728 {
			want = -32602
		}
		if got := features(v).resourceNotFoundCode; got != want {
			t.Errorf("%s: resourceNotFoundCode = %d, want %d", v, got, want)
		}
	}
	if got := features("bogus").resourceNotFoundCode; got != 0 {
		t.Errorf("unknown version: resourceNotFoundCode = %d, want 0", got)
	}
}

// TestFeaturesMatchSchemas checks the version table against the official
// schema of each revision: a feature that adds a definition is on exactly in
// the revisions whose schema has that definition.
func TestFeaturesMatchSchemas(t *testing.T) {
	tests := []struct {
		def string
		get func(versionFeatures) bool
	}{
		{"InitializeRequest", func(f versionFeatures) bool { return !f.stateless }},
		{"PingRequest", func(f versionFeatures) bool { return f.ping }},
		{"JSONRPCBatchRequest", func(f versionFeatures) bool { return f.batches }},
		{"AudioContent", func(f versionFeatures) bool { return f.audioContent }},
		{"ToolAnnotations", func(f versionFeatures) bool { return f.toolAnnotations }},
		{"ResourceLink", func(f versionFeatures) bool { return f.resourceLinks }},
		{"BaseMetadata", func(f versionFeatures) bool { return f.titles }},
		{"ElicitRequest", func(f versionFeatures) bool { return f.elicitation }},
		{"ElicitRequestURLParams", func(f versionFeatures) bool { return f.elicitationURLMode }},
		{"ElicitationCompleteNotification", func(f versionFeatures) bool { return f.elicitationComplete }},
		{"URLElicitationRequiredError", func(f versionFeatures) bool { return f.urlElicitationRequiredError }},
		{"TitledSingleSelectEnumSchema", func(f versionFeatures) bool { return f.enumSchemas }},
		{"Icon", func(f versionFeatures) bool { return f.icons }},
		{"ToolUseContent", func(f versionFeatures) bool { return f.samplingTools }},
		{"Task", func(f versionFeatures) bool { return f.tasks }},
		{"JSONRPCErrorResponse", func(f versionFeatures) bool { return f.errorIDOptional }},
		{"SetLevelRequest", func(f versionFeatures) bool { return f.loggingSetLevel }},
		{"SubscribeRequest", func(f versionFeatures) bool { return f.resourceSubscribe }},
		{"RootsListChangedNotification", func(f versionFeatures) bool { return f.rootsListChanged }},
		{"DiscoverRequest", func(f versionFeatures) bool { return f.serverDiscover }},
		{"SubscriptionsListenRequest", func(f versionFeatures) bool { return f.subscriptionsListen }},
		{"CacheableResult", func(f versionFeatures) bool { return f.cacheHints }},
		{"InputRequiredResult", func(f versionFeatures) bool { return f.inputRequired }},
		{"ResultType", func(f versionFeatures) bool { return f.resultType }},
		{"UnsupportedProtocolVersionError", func(f versionFeatures) bool { return f.modernErrors }},
		{"ServerRequest", func(f versionFeatures) bool { return f.serverRequests }},
	}
	for _, tt := range tests {
		for _, v := range all {
			has, err := specschema.HasDef(v, tt.def)
			if err != nil {
				t.Fatal(err)
			}
			if got := tt.get(features(v)); got != has {
				t.Errorf("%s: feature for %s = %v, but the schema has it: %v", v, tt.def, got, has)
			}
		}
	}
}

func TestIsSupportedVersion(t *testing.T) {
	for _, v := range all {
		if !IsSupportedVersion(v) {
			t.Errorf("IsSupportedVersion(%q) = false", v)
		}
	}
	for _, v := range []string{"", "2025-01-01", "2024-11-05 ", "draft", "DRAFT", "2026-07-28x"} {
		if IsSupportedVersion(v) {
			t.Errorf("IsSupportedVersion(%q) = true", v)
		}
	}
}

func TestNegotiateVersion(t *testing.T) {
	tests := []struct {
		requested, want string
	}{
		{Version20241105, Version20241105},
		{Version20250326, Version20250326},
		{Version20250618, Version20250618},
		{Version20251125, Version20251125},
		// initialize cannot select the stateless revision.
		{Version20260728, LatestStatefulVersion},
		{"2099-01-01", LatestStatefulVersion},
		{"2024-10-07", LatestStatefulVersion},
		{"", LatestStatefulVersion},
	}
	for _, tt := range tests {
		if got := negotiateVersion(tt.requested); got != tt.want {
			t.Errorf("negotiateVersion(%q) = %q, want %q", tt.requested, got, tt.want)
		}
	}
}
