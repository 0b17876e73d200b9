package mcpotel

// SetSessionRecorded sets the hook that runs after a server session's
// duration is recorded (nil removes it).
func SetSessionRecorded(f func()) {
	if f == nil {
		sessionRecorded.Store(nil)
		return
	}
	sessionRecorded.Store(&f)
}
