// The version of this build. deploy/Dockerfile overwrites this file from its VERSION build argument; keep it
// one line so that the rewrite stays a one-liner.
let buildVersion = "0.0.0-dev"
