package mcp

import "slices"

// Protocol revisions this package implements. A revision is named by the date
// its specification was published.
const (
	Version20241105 = "2024-11-05"
	Version20250326 = "2025-03-26"
	Version20250618 = "2025-06-18"
	Version20251125 = "2025-11-25"
	Version20260728 = "2026-07-28"

	// LatestVersion is the newest revision: the stateless protocol, with no
	// initialize handshake.
	LatestVersion = Version20260728

	// LatestStatefulVersion is the newest revision that uses the initialize
	// handshake. A server offers it when a client asks, in initialize, for a
	// revision the server does not know.
	LatestStatefulVersion = Version20251125
)

// SupportedVersions returns every revision this package implements, newest
// first, in a slice of the caller's own.
func SupportedVersions() []string { return slices.Clone(supportedVersions) }

// supportedVersions lists every revision this package implements, newest
// first.
var supportedVersions = []string{
	Version20260728,
	Version20251125,
	Version20250618,
	Version20250326,
	Version20241105,
}

// IsStatelessVersion reports whether v is a supported revision of the
// stateless lifecycle (2026-07-28 and later): no initialize, per-request
// _meta.
func IsStatelessVersion(v string) bool { return features(v).stateless }

// IsSupportedVersion reports whether v is a revision this package implements.
func IsSupportedVersion(v string) bool {
	return features(v).version != ""
}

// negotiateVersion implements the server side of the initialize rule: echo
// the requested revision if it is a supported stateful revision, else offer
// LatestStatefulVersion. A stateless revision (2026-07-28) is never chosen by
// initialize, which that revision removed.
func negotiateVersion(requested string) string {
	if f := features(requested); f.version != "" && !f.stateless {
		return requested
	}
	return LatestStatefulVersion
}

// versionFeatures describes one protocol revision: every behaviour that
// differs between revisions is a field here, so that the rest of the package
// asks features(v).x instead of comparing version strings.
//
// The zero value describes no revision (version is ""): every feature off.
type versionFeatures struct {
	version string // the revision; "" for an unknown one

	// Lifecycle and messaging.

	stateless               bool  // 2026: no initialize/initialized, per-request _meta, no session
	batches                 bool  // JSON-RPC batches must be accepted (2025-03-26 only)
	ping                    bool  // the ping method exists (removed in 2026)
	serverRequests          bool  // the server may send JSON-RPC requests (sampling, roots, elicitation, ping); 2026 uses inputRequests instead
	errorIDOptional         bool  // an error response may omit "id" (2025-11-25+)
	cancelRequestIDOptional bool  // notifications/cancelled may omit requestId (2025-11-25 only)
	progressMessage         bool  // ProgressNotificationParams.Message (2025-03-26+)
	resourceNotFoundCode    int64 // error code for an unknown resource: -32002, or -32602 in 2026
	modernErrors            bool  // HeaderMismatch -32020, MissingRequiredClientCapability -32021, UnsupportedProtocolVersion -32022

	// Server features.

	completionsCapability     bool // ServerCapabilities.Completions exists (2025-03-26+; 2024-11-05 gated nothing)
	completionContext         bool // CompleteParams.Context (2025-06-18+)
	loggingSetLevel           bool // logging/setLevel exists (removed in 2026)
	perRequestLogLevel        bool // _meta io.modelcontextprotocol/logLevel opts a request in to logs (2026)
	resourceSubscribe         bool // resources/subscribe and resources/unsubscribe exist (removed in 2026)
	listChangedNotifications  bool // list_changed and resources/updated may be sent at any time; in 2026 only on subscriptions/listen
	subscriptionsListen       bool // subscriptions/listen (2026)
	serverDiscover            bool // server/discover (2026)
	toolAnnotations           bool // Tool.Annotations (2025-03-26+)
	structuredOutput          bool // Tool.OutputSchema and CallToolResult.StructuredContent (2025-06-18+)
	structuredContentAnyJSON  bool // structuredContent may be any JSON value, outputSchema any schema (2026); before, objects only
	toolNameRules             bool // tool names are 1-128 of [A-Za-z0-9_.-] (2025-11-25+)
	inputValidationToolErrors bool // argument validation failures are isError results, not -32602 (2025-11-25+)
	jsonSchema202012Default   bool // schemas without $schema are JSON Schema 2020-12 (2025-11-25+)
	resultType                bool // every result carries resultType (2026)
	cacheHints                bool // cacheable results carry ttlMs and cacheScope (2026)
	inputRequired             bool // InputRequiredResult and inputResponses/requestState retries (MRTR, 2026)

	// Content and metadata.

	audioContent              bool // AudioContent (2025-03-26+)
	resourceLinks             bool // ResourceLink content (2025-06-18+)
	titles                    bool // title on Tool, Resource, ResourceTemplate, Prompt, PromptArgument, Implementation (2025-06-18+)
	annotationsLastModified   bool // Annotations.LastModified (2025-06-18+)
	contentMeta               bool // _meta on content blocks, resources, roots and more (2025-06-18+)
	icons                     bool // icons on Implementation, Tool, Resource, ResourceTemplate, Prompt (2025-11-25+)
	implementationDescription bool // Implementation.Description and WebsiteURL (2025-11-25+)

	// Client features.

	rootsListChanged            bool // notifications/roots/list_changed (removed in 2026)
	elicitation                 bool // elicitation/create (2025-06-18+)
	elicitationURLMode          bool // URL-mode elicitation and elicitation{form,url} capabilities (2025-11-25+)
	elicitationComplete         bool // notifications/elicitation/complete and ElicitParams.ElicitationID (2025-11-25 only)
	urlElicitationRequiredError bool // error -32042 (2025-11-25 only)
	enumSchemas                 bool // SEP-1330 enum schemas (titled, multi-select) in requestedSchema (2025-11-25+)
	elicitationDefaults         bool // "default" on primitive elicitation schemas (2025-11-25+)
	samplingTools               bool // tools/toolChoice, tool_use/tool_result content, sampling.{context,tools} (2025-11-25+)
	samplingContentArrays       bool // sampling message content may be an array (2025-11-25+)
	tasks                       bool // SEP-1686 tasks: tasks/*, params.task, Tool.Execution, tasks capabilities (2025-11-25 only)

	// Transports.

	httpSSE               bool // the HTTP+SSE transport is current (2024-11-05; deprecated later)
	streamableHTTP        bool // Streamable HTTP (2025-03-26+)
	sessions              bool // Mcp-Session-Id (2025-03-26 to 2025-11-25)
	httpGetStream         bool // GET opens a server-to-client SSE stream (2025-03-26 to 2025-11-25)
	sseResumable          bool // SSE event ids and Last-Event-ID resumption (2025-03-26 to 2025-11-25)
	ssePolling            bool // SEP-1699 priming events and retry-driven polling (2025-11-25)
	protocolVersionHeader bool // MCP-Protocol-Version header (2025-06-18+)
	disconnectCancels     bool // closing a response stream cancels the request (2026)
	standardHeaders       bool // Mcp-Method, Mcp-Name and x-mcp-header Mcp-Param-* headers (2026)
	originForbidden403    bool // an invalid Origin gets 403 (2025-11-25+)
}

// versionTable holds one entry per supported revision, newest first. Each
// entry is written out in full so that a revision can be read at a glance.
var versionTable = [...]versionFeatures{
	{
		version:                   Version20260728,
		stateless:                 true,
		errorIDOptional:           true,
		progressMessage:           true,
		resourceNotFoundCode:      -32602,
		modernErrors:              true,
		completionsCapability:     true,
		completionContext:         true,
		perRequestLogLevel:        true,
		subscriptionsListen:       true,
		serverDiscover:            true,
		toolAnnotations:           true,
		structuredOutput:          true,
		structuredContentAnyJSON:  true,
		toolNameRules:             true,
		inputValidationToolErrors: true,
		jsonSchema202012Default:   true,
		resultType:                true,
		cacheHints:                true,
		inputRequired:             true,
		audioContent:              true,
		resourceLinks:             true,
		titles:                    true,
		annotationsLastModified:   true,
		contentMeta:               true,
		icons:                     true,
		implementationDescription: true,
		elicitation:               true,
		elicitationURLMode:        true,
		enumSchemas:               true,
		elicitationDefaults:       true,
		samplingTools:             true,
		samplingContentArrays:     true,
		streamableHTTP:            true,
		protocolVersionHeader:     true,
		disconnectCancels:         true,
		standardHeaders:           true,
		originForbidden403:        true,
	},
	{
		version:                     Version20251125,
		ping:                        true,
		serverRequests:              true,
		errorIDOptional:             true,
		cancelRequestIDOptional:     true,
		progressMessage:             true,
		resourceNotFoundCode:        CodeResourceNotFound,
		completionsCapability:       true,
		completionContext:           true,
		loggingSetLevel:             true,
		resourceSubscribe:           true,
		listChangedNotifications:    true,
		toolAnnotations:             true,
		structuredOutput:            true,
		toolNameRules:               true,
		inputValidationToolErrors:   true,
		jsonSchema202012Default:     true,
		audioContent:                true,
		resourceLinks:               true,
		titles:                      true,
		annotationsLastModified:     true,
		contentMeta:                 true,
		icons:                       true,
		implementationDescription:   true,
		rootsListChanged:            true,
		elicitation:                 true,
		elicitationURLMode:          true,
		elicitationComplete:         true,
		urlElicitationRequiredError: true,
		enumSchemas:                 true,
		elicitationDefaults:         true,
		samplingTools:               true,
		samplingContentArrays:       true,
		tasks:                       true,
		streamableHTTP:              true,
		sessions:                    true,
		httpGetStream:               true,
		sseResumable:                true,
		ssePolling:                  true,
		protocolVersionHeader:       true,
		originForbidden403:          true,
	},
	{
		version:                  Version20250618,
		ping:                     true,
		serverRequests:           true,
		progressMessage:          true,
		resourceNotFoundCode:     CodeResourceNotFound,
		completionsCapability:    true,
		completionContext:        true,
		loggingSetLevel:          true,
		resourceSubscribe:        true,
		listChangedNotifications: true,
		toolAnnotations:          true,
		structuredOutput:         true,
		audioContent:             true,
		resourceLinks:            true,
		titles:                   true,
		annotationsLastModified:  true,
		contentMeta:              true,
		rootsListChanged:         true,
		elicitation:              true,
		streamableHTTP:           true,
		sessions:                 true,
		httpGetStream:            true,
		sseResumable:             true,
		protocolVersionHeader:    true,
	},
	{
		version:                  Version20250326,
		batches:                  true,
		ping:                     true,
		serverRequests:           true,
		progressMessage:          true,
		resourceNotFoundCode:     CodeResourceNotFound,
		completionsCapability:    true,
		loggingSetLevel:          true,
		resourceSubscribe:        true,
		listChangedNotifications: true,
		toolAnnotations:          true,
		audioContent:             true,
		rootsListChanged:         true,
		streamableHTTP:           true,
		sessions:                 true,
		httpGetStream:            true,
		sseResumable:             true,
	},
	{
		version:                  Version20241105,
		ping:                     true,
		serverRequests:           true,
		resourceNotFoundCode:     CodeResourceNotFound,
		loggingSetLevel:          true,
		resourceSubscribe:        true,
		listChangedNotifications: true,
		rootsListChanged:         true,
		httpSSE:                  true,
	},
}

// features returns the feature set of revision version. An unknown version
// gets the zero versionFeatures (version "", every feature off): callers are
// expected to have rejected or negotiated the version already, and treating a
// stray one as "nothing optional" is the conservative choice.
func features(version string) versionFeatures {
	for i := range versionTable {
		if versionTable[i].version == version {
			return versionTable[i]
		}
	}
	return versionFeatures{}
}

// Revision is what a transport, or a feature package such as tasks, needs
// to know about one protocol revision that the rest of the mcp API does not
// tell (IsStatelessVersion does the lifecycle): the version table's facts,
// read-only. They ask it instead of comparing version strings.
type Revision struct {
	// Version is the revision's name, e.g. "2025-11-25".
	Version string
	// Batches: JSON-RPC batches must be accepted (2025-03-26 only).
	Batches bool
	// SSEPriming: streams open with a priming event and retry-driven
	// polling (SEP-1699).
	SSEPriming bool
	// CoreTasks: the revision has the tasks of SEP-1686 (params.task,
	// tasks/get, tasks/result, tasks/list, tasks/cancel); 2025-11-25 only.
	// Later revisions moved tasks into an extension.
	CoreTasks bool
}

// LookupRevision returns the facts of revision v, and false when this
// package does not implement v.
func LookupRevision(v string) (Revision, bool) {
	f := features(v)
	if f.version == "" {
		return Revision{}, false
	}
	return Revision{
		Version:    f.version,
		Batches:    f.batches,
		SSEPriming: f.ssePolling,
		CoreTasks:  f.tasks,
	}, true
}
