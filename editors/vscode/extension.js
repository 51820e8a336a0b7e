// The casec language client: starts `casec lsp` for .case documents and restarts it
// when its settings change. Everything the editor shows (diagnostics, completion,
// hover, definitions, outline, formatting, quick fixes) comes from the server.
'use strict';

const vscode = require('vscode');
const { LanguageClient } = require('vscode-languageclient/node');

/** @type {LanguageClient | undefined} */
let client;

/** How to start the server, from the `casec.*` settings. */
function serverOptions(settings) {
  const command = settings.get('path') || 'casec';
  return { command, args: ['lsp'] };
}

const clientOptions = {
  // Saved files and unsaved buffers alike; the server checks a file with the suite
  // folder around it.
  documentSelector: [
    { scheme: 'file', language: 'case' },
    { scheme: 'untitled', language: 'case' },
  ],
};

async function start() {
  const settings = vscode.workspace.getConfiguration('casec');
  if (settings.get('server.enable') === false) {
    return;
  }
  const options = serverOptions(settings);
  client = new LanguageClient('casec', 'casec', options, clientOptions);
  try {
    await client.start();
  } catch (error) {
    client = undefined;
    vscode.window.showErrorMessage(
      `casec: could not start \`${options.command} lsp\` (${error.message}). ` +
        'Install casec or set `casec.path` to its executable.'
    );
  }
}

async function stop() {
  const running = client;
  client = undefined;
  if (running) {
    await running.stop();
  }
}

async function activate(context) {
  context.subscriptions.push(
    vscode.workspace.onDidChangeConfiguration(async (event) => {
      if (event.affectsConfiguration('casec.path') || event.affectsConfiguration('casec.server.enable')) {
        await stop();
        await start();
      }
    })
  );
  await start();
}

function deactivate() {
  return stop();
}

module.exports = { activate, deactivate };
