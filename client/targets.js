// @ts-check
// A CLI target may be a config file: it stands for the names of the apps it declares.
import { existsSync } from 'node:fs'
import { resolve } from 'node:path'
import { appName, isConfigFile, loadConfigFile, selectApps } from './config/load-file.js'

/**
 * @param {string[]} targets names, ids, "all" or config files
 * @param {{ cwd: string, only?: string }} options
 * @returns {Promise<string[]>}
 */
export async function expandTargets (targets, { cwd, only }) {
  const expanded = []
  for (const target of targets) {
    if (isConfigFile(target) && existsSync(resolve(cwd, target))) {
      const { file, apps } = await loadConfigFile(target, cwd)
      const selected = only ? selectApps(apps, only, file) : apps
      expanded.push(...selected.map(appName))
    } else {
      expanded.push(target)
    }
  }
  return expanded
}
