<?php
defined( 'ABSPATH' ) || exit;

/**
 * "Import existing balances": the points customers hold in WooCommerce Points & Rewards or myCred,
 * sent to Punchcard's POST /api/v1/members/import in batches, one admin-ajax call per batch (the
 * page's script calls again until done, showing progress). Customers are named as the store
 * connection names them (by user id, or by email when the store setting says so).
 *
 * Safe to run again: every batch carries one import key for this site and source, and Punchcard
 * imports a member once per key, so a second run (or one after an interruption) adds nothing twice.
 */
final class Punchcard_Loyalty_Import {
	const ACTION = 'punchcard_loyalty_import';
	/** The run's progress and summary, kept between the page's calls (not autoloaded). */
	const STATE = 'punchcard_loyalty_import_state';
	/** Users per request: well under Punchcard's 1,000 rows, and quick for PHP's time limit. */
	const BATCH = 250;
	/** Members listed in the summary (errors, log disagreements); the counts cover all. */
	const LISTED = 50;

	public static function register(): void {
		add_action( 'wp_ajax_' . self::ACTION, array( self::class, 'handle_batch' ) );
	}

	private static function points_table(): string {
		global $wpdb;
		return $wpdb->prefix . 'wc_points_rewards_user_points';
	}

	private static function mycred_log(): string {
		global $wpdb;
		return $wpdb->prefix . 'myCRED_log';
	}

	private static function table_exists( string $table ): bool {
		global $wpdb;
		return $table === $wpdb->get_var( $wpdb->prepare( 'SHOW TABLES LIKE %s', $wpdb->esc_like( $table ) ) );
	}

	/** myCred's balance meta key: its default point type unless the admin names another. */
	public static function meta_key( string $given ): string {
		$key = sanitize_key( $given );
		return '' === $key ? 'mycred_default' : $key;
	}

	/**
	 * What this site has to import: for each source found, how many users hold a balance there.
	 *
	 * @return array<string, int> source => users
	 */
	public static function sources( string $meta_key ): array {
		global $wpdb;
		$found = array();
		if ( self::table_exists( self::points_table() ) ) {
			$found['woocommerce-points'] = (int) $wpdb->get_var( 'SELECT COUNT(DISTINCT user_id) FROM ' . self::points_table() ); // phpcs:ignore WordPress.DB.PreparedSQL.NotPrepared -- a table name.
		}
		$mycred = (int) $wpdb->get_var( $wpdb->prepare( "SELECT COUNT(*) FROM {$wpdb->usermeta} WHERE meta_key = %s", $meta_key ) );
		if ( $mycred > 0 ) {
			$found['mycred'] = $mycred;
		}
		return $found;
	}

	/**
	 * The next users after `$after` with their balances: Points & Rewards' rows summed per user, or
	 * myCred's balance meta (what the shopper sees).
	 *
	 * @return array<int, array{0: int, 1: string}> [user id, balance as stored]
	 */
	private static function balances_after( string $source, string $meta_key, int $after ): array {
		global $wpdb;
		$rows = 'mycred' === $source
			? $wpdb->get_results( $wpdb->prepare( "SELECT user_id, meta_value FROM {$wpdb->usermeta} WHERE meta_key = %s AND user_id > %d ORDER BY user_id LIMIT %d", $meta_key, $after, self::BATCH ), ARRAY_N )
			: $wpdb->get_results( $wpdb->prepare( 'SELECT user_id, SUM(points_balance) FROM ' . self::points_table() . ' WHERE user_id > %d GROUP BY user_id ORDER BY user_id LIMIT %d', $after, self::BATCH ), ARRAY_N ); // phpcs:ignore WordPress.DB.PreparedSQL.NotPrepared -- a table name.
		return array_map( static fn( $row ) => array( (int) $row[0], (string) $row[1] ), is_array( $rows ) ? $rows : array() );
	}

	/**
	 * What myCred's own log adds up to for each user: its award reads, adds and writes the balance
	 * back without a transaction, so concurrent awards can be lost from the balance but not the log.
	 *
	 * @return array<int, float> user id => sum of the log
	 */
	private static function log_sums( string $meta_key, array $user_ids ): array {
		global $wpdb;
		if ( array() === $user_ids || ! self::table_exists( self::mycred_log() ) ) {
			return array();
		}
		$ids  = implode( ',', array_map( 'intval', $user_ids ) );
		$rows = $wpdb->get_results( $wpdb->prepare( 'SELECT user_id, SUM(creds) FROM ' . self::mycred_log() . " WHERE ctype = %s AND user_id IN ($ids) GROUP BY user_id", $meta_key ), ARRAY_N ); // phpcs:ignore WordPress.DB.PreparedSQL.NotPrepared -- a table name and integers.
		$sums = array();
		foreach ( is_array( $rows ) ? $rows : array() as $row ) {
			$sums[ (int) $row[0] ] = (float) $row[1];
		}
		return $sums;
	}

	private static function fresh_state( string $source, string $meta_key ): array {
		return array(
			// Names this run in its batches' ids: a batch retried within the run is answered again,
			// a new run is sent afresh (and Punchcard finds its members imported already).
			'run'        => wp_generate_password( 8, false ),
			'source'     => $source,
			'meta_key'   => $meta_key,
			'after'      => 0,
			'total'      => self::sources( $meta_key )[ $source ] ?? 0,
			'done'       => false,
			'processed'  => 0,
			'created'    => 0,
			'updated'    => 0,
			'unchanged'  => 0,
			'skipped'    => 0,
			'points'     => 0,
			'errors'     => array(),
			'mismatches' => 0,
			'listed'     => array(),
		);
	}

	private static function note( array &$state, string $list, $entry ): void {
		if ( count( $state[ $list ] ) < self::LISTED ) {
			$state[ $list ][] = $entry;
		}
	}

	/**
	 * One batch: the next users' balances to Punchcard, the answer added to the run's summary.
	 * `start=1` begins a run (again from the first user). Answers the run's state as JSON.
	 */
	public static function handle_batch(): void {
		if ( ! current_user_can( Punchcard_Loyalty_Admin::CAPABILITY ) ) {
			wp_send_json_error( array( 'message' => __( 'Sorry, you are not allowed to import balances.', 'punchcard-loyalty' ) ), 403 );
		}
		check_ajax_referer( self::ACTION );
		$source   = isset( $_POST['source'] ) && 'mycred' === $_POST['source'] ? 'mycred' : 'woocommerce-points';
		$meta_key = self::meta_key( isset( $_POST['meta_key'] ) ? sanitize_text_field( wp_unslash( $_POST['meta_key'] ) ) : '' );
		$state    = get_option( self::STATE );
		if ( ! empty( $_POST['start'] ) || ! is_array( $state ) || $state['source'] !== $source || $state['meta_key'] !== $meta_key ) {
			$state = self::fresh_state( $source, $meta_key );
		}
		if ( $state['done'] ) {
			wp_send_json_success( $state );
		}
		$balances = self::balances_after( $source, $meta_key, (int) $state['after'] );
		if ( array() === $balances ) {
			$state['done'] = true;
			update_option( self::STATE, $state, false );
			wp_send_json_success( $state );
		}

		$rows = array();
		$sent = array();
		foreach ( $balances as list( $user_id, $stored ) ) {
			$user = get_userdata( $user_id );
			if ( ! $user ) {
				++$state['skipped'];
				/* translators: %d: a WordPress user id */
				self::note( $state, 'errors', sprintf( __( 'User %d: no such user any more.', 'punchcard-loyalty' ), $user_id ) );
				continue;
			}
			$row = json_decode( Punchcard_Loyalty_Widget::member_json( $user ), true );
			if ( 'email' !== Punchcard_Loyalty_Store::setting( 'memberIdentifier', 'customerId' ) ) {
				$row['externalId'] = (string) $user_id;
			} elseif ( ! isset( $row['email'] ) ) {
				++$state['skipped'];
				/* translators: %d: a WordPress user id */
				self::note( $state, 'errors', sprintf( __( 'User %d: no valid email to name the member by (the store names members by email).', 'punchcard-loyalty' ), $user_id ) );
				continue;
			}
			// Punchcard's points are whole: myCred's decimals, if set, are cut.
			$row['balance'] = max( 0, (int) floor( (float) $stored ) );
			$rows[]         = $row;
			$sent[]         = array( $user_id, (float) $stored );
		}
		$state['after']      = end( $balances )[0];
		$state['processed'] += count( $balances );

		if ( array() !== $rows ) {
			$ids    = wp_list_pluck( $sent, 0 );
			$answer = Punchcard_Loyalty_Client::from_options()->request(
				'POST',
				'/api/v1/members/import',
				array(
					'batchId'   => $source . '-' . $state['run'] . '-' . $ids[0] . '-' . end( $ids ),
					'importKey' => $source . ':' . home_url(),
					'source'    => $source,
					'mode'      => 'add',
					'rows'      => $rows,
				)
			);
			if ( is_wp_error( $answer ) ) {
				// The cursor stays where it was: running the import again carries on from here.
				wp_send_json_error( array( 'message' => $answer->get_error_message() ) );
			}
			foreach ( $answer['rows'] as $index => $result ) {
				if ( 'error' === $result['outcome'] ) {
					++$state['skipped'];
					/* translators: 1: a WordPress user id, 2: Punchcard's reason */
					self::note( $state, 'errors', sprintf( __( 'User %1$d: %2$s', 'punchcard-loyalty' ), $sent[ $index ][0], $result['error'] ) );
					continue;
				}
				$outcome = 'new' === $result['outcome'] ? 'created' : $result['outcome'];
				++$state[ $outcome ];
				$state['points'] += (int) $result['points'];
			}
		}

		if ( 'mycred' === $source ) {
			$logs = self::log_sums( $meta_key, wp_list_pluck( $sent, 0 ) );
			foreach ( $sent as list( $user_id, $balance ) ) {
				$log = $logs[ $user_id ] ?? 0.0;
				if ( abs( $log - $balance ) > 0.0001 ) {
					++$state['mismatches'];
					self::note( $state, 'listed', array( 'user' => $user_id, 'balance' => $balance, 'log' => $log ) );
				}
			}
		}
		update_option( self::STATE, $state, false );
		wp_send_json_success( $state );
	}

	/** The admin page's section: what can be imported, the button, the progress and the last summary. */
	public static function render(): void {
		$state    = get_option( self::STATE );
		$meta_key = is_array( $state ) ? $state['meta_key'] : 'mycred_default';
		$sources  = self::sources( $meta_key );
		$labels   = array(
			'woocommerce-points' => __( 'WooCommerce Points & Rewards', 'punchcard-loyalty' ),
			'mycred'             => __( 'myCred', 'punchcard-loyalty' ),
		);
		echo '<h2>' . esc_html__( 'Import existing balances', 'punchcard-loyalty' ) . '</h2>';
		echo '<p>' . esc_html__( 'Bring the points your customers hold in another points plugin over to Punchcard, each balance as one IMPORTED entry. Running it again adds nothing twice.', 'punchcard-loyalty' ) . '</p>';
		echo '<form id="punchcard-loyalty-import"><table class="form-table" role="presentation"><tr><th scope="row">' . esc_html__( 'From', 'punchcard-loyalty' ) . '</th><td>';
		if ( array() === $sources ) {
			echo '<p>' . esc_html__( 'No WooCommerce Points & Rewards or myCred balances were found on this site.', 'punchcard-loyalty' ) . '</p>';
		}
		foreach ( $sources as $source => $users ) {
			echo '<label><input type="radio" name="source" value="' . esc_attr( $source ) . '"' . checked( array_key_first( $sources ), $source, false ) . '> '
				/* translators: 1: plugin name, 2: number of customers */
				. esc_html( sprintf( _n( '%1$s (%2$d customer)', '%1$s (%2$d customers)', $users, 'punchcard-loyalty' ), $labels[ $source ], $users ) ) . '</label><br>';
		}
		echo '</td></tr><tr><th scope="row"><label for="punchcard-meta-key">' . esc_html__( 'myCred point type', 'punchcard-loyalty' ) . '</label></th><td>'
			. '<input type="text" id="punchcard-meta-key" name="meta_key" value="' . esc_attr( $meta_key ) . '"><p class="description">'
			. esc_html__( 'The balance\'s user meta key: mycred_default unless you use another point type.', 'punchcard-loyalty' ) . '</p></td></tr></table>';
		echo '<p><button type="submit" class="button button-primary"' . disabled( array() === $sources, true, false ) . '>' . esc_html__( 'Import existing balances', 'punchcard-loyalty' ) . '</button></p>';
		echo '<p><progress id="punchcard-loyalty-import-progress" max="1" value="0" hidden></progress> <span id="punchcard-loyalty-import-status" role="status"></span></p></form>';
		echo '<div id="punchcard-loyalty-import-summary">';
		if ( is_array( $state ) && $state['done'] ) {
			self::render_summary( $state );
		}
		echo '</div>';
		self::render_script();
	}

	/** The summary of a finished run (the script shows the same from the last answer). */
	private static function render_summary( array $state ): void {
		echo '<p class="punchcard-loyalty-import-summary">' . esc_html(
			sprintf(
				/* translators: 1-5: counts, 6: points */
				__( 'Last import: %1$d customers read; %2$d new members, %3$d updated, %4$d unchanged, %5$d skipped; %6$d points imported.', 'punchcard-loyalty' ),
				$state['processed'],
				$state['created'],
				$state['updated'],
				$state['unchanged'],
				$state['skipped'],
				$state['points']
			)
		) . '</p>';
		foreach ( $state['errors'] as $error ) {
			echo '<p class="punchcard-loyalty-import-error">' . esc_html( $error ) . '</p>';
		}
		if ( $state['mismatches'] > 0 ) {
			/* translators: %d: number of customers */
			echo '<p>' . esc_html( sprintf( __( '%d customers\' myCred balance differs from the sum of their myCred log; their balance (what they saw) was imported:', 'punchcard-loyalty' ), $state['mismatches'] ) ) . '</p><ul class="punchcard-loyalty-import-mismatches">';
			foreach ( $state['listed'] as $entry ) {
				/* translators: 1: user id, 2: balance, 3: log sum */
				echo '<li>' . esc_html( sprintf( __( 'User %1$d: balance %2$s, log %3$s', 'punchcard-loyalty' ), $entry['user'], $entry['balance'], $entry['log'] ) ) . '</li>';
			}
			echo '</ul>';
		}
	}

	/** Calls the batch action until the run is done, drawing progress; then reloads the page to show the summary. */
	private static function render_script(): void {
		$config = array(
			'url'   => admin_url( 'admin-ajax.php' ),
			'nonce' => wp_create_nonce( self::ACTION ),
			'words' => array(
				/* translators: 1: customers done, 2: all customers */
				'progress' => __( 'Imported %1$d of %2$d customers…', 'punchcard-loyalty' ),
				'failed'   => __( 'The import stopped: ', 'punchcard-loyalty' ),
			),
		);
		?>
<script>
(function (config) {
	var form = document.getElementById('punchcard-loyalty-import');
	var bar = document.getElementById('punchcard-loyalty-import-progress');
	var status = document.getElementById('punchcard-loyalty-import-status');
	function step(start) {
		var data = new FormData(form);
		data.append('action', '<?php echo esc_js( self::ACTION ); ?>');
		data.append('_ajax_nonce', config.nonce);
		if (start) data.append('start', '1');
		return fetch(config.url, { method: 'POST', body: data, credentials: 'same-origin' }).then(function (r) { return r.json(); }).then(function (answer) {
			if (!answer.success) throw new Error(answer.data && answer.data.message ? answer.data.message : 'HTTP error');
			var state = answer.data;
			bar.max = Math.max(state.total, 1);
			bar.value = state.processed;
			status.textContent = config.words.progress.replace('%1$d', state.processed).replace('%2$d', state.total);
			return state.done ? window.location.reload() : step(false);
		});
	}
	form.addEventListener('submit', function (event) {
		event.preventDefault();
		bar.hidden = false;
		form.querySelector('button').disabled = true;
		step(true).catch(function (error) {
			status.textContent = config.words.failed + error.message;
			form.querySelector('button').disabled = false;
		});
	});
})(<?php echo wp_json_encode( $config ); ?>);
</script>
		<?php
	}
}
