// @ts-check
import assert from 'node:assert/strict'
import { describe, test } from 'node:test'
import { GLOBAL, Keymap, createKeymap, keyName, showKey } from '../../../../client/monit/keys.js'
import { installView } from '../../../../client/monit/views.js'
import { createDetailView } from '../../../../client/monit/detail.js'
import { MonitModel } from '../../../../client/monit/model.js'

/** The keymap monit runs with: the base table and every view's keys. */
function fullKeymap () {
  const keymap = createKeymap()
  /** @type {Record<string, () => void>} */
  const handlers = {}
  const ctx = { model: new MonitModel(), request: async () => ({}), redraw: () => {}, say: () => {}, confirm: async () => true, pageHeight: () => 20, style: { color: false, unicode: true } }
  installView(keymap, handlers, createDetailView(ctx), () => {})
  return { keymap, handlers }
}

describe('keyName', () => {
  /** @type {Array<[string | undefined, any, string]>} */
  const rows = [
    ['j', { name: 'j', full: 'j' }, 'j'],
    ['G', { name: 'g', full: 'S-g', shift: true }, 'G'],
    ['?', { full: '?' }, '?'],
    ['+', { full: '+' }, '+'],
    ['\r', { name: 'enter', full: 'enter' }, 'enter'],
    [' ', { name: 'space', full: 'space' }, 'space'],
    ['\x12', { name: 'r', full: 'C-r', ctrl: true }, 'C-r'],
    [undefined, { name: 'pageup', full: 'pageup' }, 'pageup'],
    ['\x1b', { name: 'escape', full: 'escape' }, 'escape'],
    ['\x7f', { name: 'backspace', full: 'backspace' }, 'backspace']
  ]
  for (const [ch, key, expected] of rows) test(`${JSON.stringify(ch)} ${key.full} → ${expected}`, () => assert.equal(keyName(ch, key), expected))
})

describe('the keymap', () => {
  test('builds with every view, and no key is bound twice in a scope', () => {
    const { keymap } = fullKeymap()
    for (const scope of keymap.scopes.values()) {
      const keys = scope.bindings.flatMap((b) => b.keys)
      assert.equal(new Set(keys).size, keys.length, `${scope.name}: ${keys}`)
    }
  })

  test('a second binding of a key in one scope throws, naming both actions', () => {
    const keymap = new Keymap().addScope('list', 'list', [{ keys: ['x'], action: 'stop', help: 'stop' }])
    assert.throws(() => keymap.add('list', [{ keys: ['x'], action: 'other', help: 'other' }]), /x is bound twice in list \(stop, other\)/)
    assert.throws(() => keymap.addScope('list', 'again', []), /scope list is already defined/)
  })

  test('a screen\'s own key comes first, then the global one', () => {
    const { keymap } = fullKeymap()
    assert.equal(keymap.lookup('list', 'j')?.action, 'down')
    assert.equal(keymap.lookup('detail', 'j')?.action, 'detail.down')
    assert.equal(keymap.lookup('detail', 'q')?.action, 'quit')
    assert.equal(keymap.lookup('detail', 'r'), undefined, 'list actions do not act from the detail view')
  })

  /** @type {Array<[string, string]>} */
  const wanted = [
    ['?', 'help'], ['q', 'quit'], ['escape', 'back'], ['m', 'mouse'], ['/', 'filter'], ['P', 'sort.cpu'], ['M', 'sort.memory'],
    ['R', 'sort.restarts'], ['T', 'sort.uptime'], ['N', 'sort.name'], ['r', 'restart'], ['C-r', 'reload'], ['x', 'stop'],
    ['u', 'start'], ['C-d', 'delete'], ['+', 'scale.up'], ['-', 'scale.down'], ['c', 'flush'], ['d', 'detail.open'],
    ['g', 'top'], ['G', 'bottom'], ['pagedown', 'page.down'], ['pageup', 'page.up'], ['enter', 'expand']
  ]
  for (const [key, action] of wanted) test(`${key} in the list: ${action}`, () => assert.equal(fullKeymap().keymap.lookup('list', key)?.action, action))

  test('s and l no longer stop and reload (k9s habits); the help says where they went', () => {
    const { keymap } = fullKeymap()
    assert.equal(keymap.lookup('list', 's'), undefined)
    const help = keymap.helpLines().join('\n')
    assert.match(help, /Ctrl-r +reload, zero-downtime \(confirm\) \(was l\)/)
    assert.match(help, /x +stop \(confirm\) \(was s\)/)
    assert.match(help, /changed from earlier versions\n +s +used to stop; now x/)
  })

  test('the help lists every key of every scope under its heading', () => {
    const { keymap } = fullKeymap()
    const help = keymap.helpLines()
    for (const scope of keymap.scopes.values()) {
      assert.ok(help.includes(scope.title), scope.title)
      for (const b of scope.bindings) assert.ok(help.some((l) => l.includes(b.keys.map(showKey).join(' ')) && l.includes(b.help)), `${scope.name} ${b.keys}`)
    }
  })

  test('every action of the table has a handler in monit or a view', () => {
    const { keymap, handlers } = fullKeymap()
    // monit.js's own handlers: the names below; a view's come through installView.
    const own = ['help', 'help.down', 'help.up', 'quit', 'back', 'view.next', 'mouse', 'down', 'up', 'page.down', 'page.up', 'top', 'bottom', 'expand', 'filter',
      'sort.cpu', 'sort.memory', 'sort.restarts', 'sort.uptime', 'sort.name', 'restart', 'reload', 'stop', 'start', 'delete', 'scale.up', 'scale.down', 'flush']
    for (const scope of keymap.scopes.values()) {
      for (const b of scope.bindings) assert.ok(own.includes(b.action) || b.action in handlers, `${b.action} has no handler`)
    }
  })

  test('the footer hints: the global ones first, then the screen\'s', () => {
    const { keymap } = fullKeymap()
    assert.deepEqual(keymap.hints('list').slice(0, 3), ['? help', 'q quit', '/ filter'])
    assert.ok(keymap.hints('list').includes('d detail'))
    assert.deepEqual(keymap.hints(GLOBAL).slice(0, 2), ['? help', 'q quit'])
  })
})

test('the help wraps a long line at words under its text, within the width', () => {
  const keymap = new Keymap().addScope(GLOBAL, 'everywhere', [{ keys: ['/'], action: 'filter', help: 'filter by name, namespace or status (Enter keeps, Esc clears)' }])
  const lines = keymap.helpLines(true, 30)
  assert.deepEqual(lines.slice(0, 4), ['everywhere', '  /  filter by name, namespace', '     or status (Enter keeps,', '     Esc clears)'])
  assert.ok(lines.every((l) => l.length <= 30))
})
