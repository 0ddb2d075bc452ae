// @ts-check
// sup set | unset | multiset | get | conf | config: PM2 keeps module settings (module_conf.json)
// that its modules read. sup has no modules; the one module PM2 users set in practice,
// pm2-logrotate, is built in and configured per app or per daemon instead.
import { SupError } from '../../ipc/errors.js'

/** pm2-logrotate's keys and where sup takes the same setting. */
const LOGROTATE = {
  max_size: 'log_max_size in the app config, or SUP_LOG_MAX_SIZE for the daemon',
  retain: 'log_retain in the app config, or SUP_LOG_RETAIN for the daemon',
  compress: 'log_compress in the app config, or SUP_LOG_COMPRESS for the daemon'
}

/**
 * @param {string} verb
 * @param {Array<string | undefined>} args
 */
export async function run (verb, args) {
  const key = String(args[0] ?? '').split(/\s+/)[0]
  const [module, setting] = key.split(/[:.]/)
  const instead = module !== 'pm2-logrotate'
    ? 'sup has no modules and no module settings; docs/pm2.md lists what replaces each PM2 feature'
    : setting in LOGROTATE
      ? `sup rotates logs itself: use ${LOGROTATE[/** @type {keyof typeof LOGROTATE} */ (setting)]} (docs/logs.md)`
      : 'sup rotates logs itself, by size only, with no such setting (docs/logs.md)'
  throw new SupError('SUP_ERR_CLI_UNSUPPORTED', { what: `sup ${verb}${key ? ` ${key}` : ''}`, reason: instead })
}
