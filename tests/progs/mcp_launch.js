#!/usr/bin/env node
// mcp_launch.js CMD [ARGS...] - starts CMD through `sh -c`, stdio
// inherited, as npx (npm exec) starts a package's bin; exits with its status.
'use strict';
const { spawn } = require('child_process');
const q = (a) => "'" + a.replace(/'/g, "'\\''") + "'";
const c = spawn('sh', ['-c', process.argv.slice(2).map(q).join(' ')],
    { stdio: 'inherit' });
c.on('exit', (code) => process.exit(code === null ? 128 : code));
