<?php
// Removing the plugin forgets its keys and the store it connected (the Punchcard side is untouched:
// disconnect first to remove the store there too).
defined( 'WP_UNINSTALL_PLUGIN' ) || exit;
delete_option( 'punchcard_loyalty' );
delete_option( 'punchcard_loyalty_import_state' );
