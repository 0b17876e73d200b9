package mcp

import (
	"encoding/json"
	"fmt"
)

// LoggingLevel is the severity of a log message, as in syslog (RFC 5424).
// Levels are ordered, so l >= LevelWarning selects warnings and worse. The
// zero value is "no level": it is left out of _meta and cannot be encoded
// anywhere else.
type LoggingLevel int8

// The eight levels, least severe first.
const (
	LevelDebug LoggingLevel = iota + 1
	LevelInfo
	LevelNotice
	LevelWarning
	LevelError
	LevelCritical
	LevelAlert
	LevelEmergency
)

var levelNames = [...]string{
	LevelDebug:     "debug",
	LevelInfo:      "info",
	LevelNotice:    "notice",
	LevelWarning:   "warning",
	LevelError:     "error",
	LevelCritical:  "critical",
	LevelAlert:     "alert",
	LevelEmergency: "emergency",
}

// ParseLoggingLevel returns the level named s ("debug" ... "emergency").
func ParseLoggingLevel(s string) (LoggingLevel, bool) {
	for l := LevelDebug; l <= LevelEmergency; l++ {
		if levelNames[l] == s {
			return l, true
		}
	}
	return 0, false
}

// String returns the level's wire name, or a placeholder for an invalid level.
func (l LoggingLevel) String() string {
	if l.valid() {
		return levelNames[l]
	}
	return fmt.Sprintf("LoggingLevel(%d)", int8(l))
}

func (l LoggingLevel) valid() bool { return l >= LevelDebug && l <= LevelEmergency }

// MarshalText implements encoding.TextMarshaler; only the eight levels encode.
func (l LoggingLevel) MarshalText() ([]byte, error) {
	if !l.valid() {
		return nil, fmt.Errorf("mcp: invalid logging level %d", int8(l))
	}
	return []byte(levelNames[l]), nil
}

// UnmarshalText implements encoding.TextUnmarshaler. Unknown names are an
// error, which a server reports as invalid params.
func (l *LoggingLevel) UnmarshalText(b []byte) error {
	v, ok := ParseLoggingLevel(string(b))
	if !ok {
		return fmt.Errorf("mcp: unknown logging level %q", b)
	}
	*l = v
	return nil
}

// SetLevelParams are the params of logging/setLevel (stateful revisions only;
// 2026-07-28 sets Meta.LogLevel per request instead).
type SetLevelParams struct {
	Meta  *Meta        `json:"_meta,omitempty"`
	Level LoggingLevel `json:"level"`
}

// LoggingMessageNotificationParams are the params of notifications/message.
type LoggingMessageNotificationParams struct {
	Meta  *Meta        `json:"_meta,omitempty"`
	Level LoggingLevel `json:"level"`
	// Logger optionally names the logger that produced the message.
	Logger string `json:"logger,omitempty"`
	// Data is any JSON value: a string message, an object, ... Nil is
	// written as null (the field is required).
	Data json.RawMessage `json:"data"`
}
