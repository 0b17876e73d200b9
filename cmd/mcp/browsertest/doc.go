// Package browsertest tests mcp inspect in a real headless browser
// (Chromium, driven by chromedp). It is a module of its own so that the SDK
// does not depend on chromedp; it builds the mcp command from the parent
// module and runs it as a user would.
package browsertest
