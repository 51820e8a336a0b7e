// The extension's wiring, with `vscode` and the language client replaced by fakes:
// which command it starts, for which documents, and how settings restart it.
'use strict';

const assert = require('node:assert');
const Module = require('node:module');
const { test, beforeEach } = require('node:test');

const state = { settings: {}, clients: [], errors: [], listeners: [], failStart: false };

class FakeClient {
  constructor(id, name, serverOptions, clientOptions) {
    Object.assign(this, { id, name, serverOptions, clientOptions, running: false });
    state.clients.push(this);
  }
  async start() {
    if (state.failStart) throw new Error('spawn casec ENOENT');
    this.running = true;
  }
  async stop() {
    this.running = false;
  }
}

const fakeVscode = {
  workspace: {
    getConfiguration: (section) => {
      assert.strictEqual(section, 'casec');
      return { get: (key) => state.settings[key] };
    },
    onDidChangeConfiguration: (listener) => {
      state.listeners.push(listener);
      return { dispose() {} };
    },
  },
  window: { showErrorMessage: (message) => state.errors.push(message) },
};

const load = Module._load;
Module._load = function (request, ...rest) {
  if (request === 'vscode') return fakeVscode;
  if (request === 'vscode-languageclient/node') return { LanguageClient: FakeClient };
  return load.call(this, request, ...rest);
};
const extension = require('../extension.js');

beforeEach(() => {
  Object.assign(state, { settings: {}, clients: [], errors: [], listeners: [], failStart: false });
});

const changed = (...sections) => ({ affectsConfiguration: (s) => sections.includes(s) });

test('starts `casec lsp` for .case files and unsaved .case buffers', async () => {
  await extension.activate({ subscriptions: [] });
  const [client] = state.clients;
  assert.deepStrictEqual(client.serverOptions, { command: 'casec', args: ['lsp'] });
  assert.deepStrictEqual(
    client.clientOptions.documentSelector.map((s) => `${s.scheme}:${s.language}`),
    ['file:case', 'untitled:case']
  );
  assert.strictEqual(client.id, 'casec', 'the id under which `casec.trace.server` is read');
  assert.ok(client.running);
  await extension.deactivate();
  assert.ok(!client.running);
});

test('`casec.path` names the executable and a change restarts the server', async () => {
  state.settings.path = '/opt/casec/bin/casec';
  await extension.activate({ subscriptions: [] });
  assert.strictEqual(state.clients[0].serverOptions.command, '/opt/casec/bin/casec');
  state.settings.path = '/usr/local/bin/casec';
  await state.listeners[0](changed('casec.path'));
  assert.ok(!state.clients[0].running);
  assert.strictEqual(state.clients[1].serverOptions.command, '/usr/local/bin/casec');
  await state.listeners[0](changed('editor.fontSize'));
  assert.strictEqual(state.clients.length, 2, 'other settings change nothing');
  await extension.deactivate();
});

test('`casec.server.enable: false` starts nothing', async () => {
  state.settings['server.enable'] = false;
  await extension.activate({ subscriptions: [] });
  assert.strictEqual(state.clients.length, 0);
});

test('a casec that cannot start is reported, not thrown', async () => {
  state.failStart = true;
  await extension.activate({ subscriptions: [] });
  assert.match(state.errors[0], /could not start `casec lsp`.*casec\.path/);
  await extension.deactivate();
});
